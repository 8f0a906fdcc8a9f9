// Review runs: the Review tree, its status bar item and status file, comment threads on lines.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
import { startReview } from './commands/startReview';
import { refreshReview } from './commands/refreshReview';
import { approveReviewAction } from './commands/approveReviewAction';
import { editReviewAction } from './commands/editReviewAction';
import { dismissReviewAction } from './commands/dismissReviewAction';
import { exportReviewActions } from './commands/exportReviewActions';
import { openReviewThread } from './commands/openReviewThread';
import { addReviewThread } from './commands/addReviewThread';
import { replyReviewThread } from './commands/replyReviewThread';
import { resolveReviewThread } from './commands/resolveReviewThread';
import { reopenReviewThread } from './commands/reopenReviewThread';
import { ReviewComments } from './reviewComments';
import type { ReviewNode } from './reviewItems';
import { ReviewModel } from './reviewModel';
import { ReviewProvider } from './reviewProvider';
import { treeView } from '../views/treeView';
import { ReviewStatus } from './reviewStatus';
import { ReviewStatusFile, STATUS_FILE_NAME } from './reviewStatusFile';

export interface ReviewDeps extends Shared {
  reviewModel: ReviewModel;
  review: ReviewProvider;
  reviewView: vscode.TreeView<ReviewNode>;
  reviewStatus: ReviewStatus;
  reviewStatusFile: ReviewStatusFile;
  reviewComments: ReviewComments;
}

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<ReviewDeps>[] = [
  [CommandIds.startReview, startReview],
  [CommandIds.refreshReview, refreshReview],
  [CommandIds.approveReviewAction, approveReviewAction],
  [CommandIds.editReviewAction, editReviewAction],
  [CommandIds.dismissReviewAction, dismissReviewAction],
  [CommandIds.exportReviewActions, exportReviewActions],
  [CommandIds.openReviewThread, openReviewThread],
  [CommandIds.addReviewThread, addReviewThread],
  [CommandIds.replyReviewThread, replyReviewThread],
  [CommandIds.resolveReviewThread, resolveReviewThread],
  [CommandIds.reopenReviewThread, reopenReviewThread],
];

export function activateReview(shared: Shared, commands: readonly CommandLine<ReviewDeps>[] = COMMANDS): Feature<ReviewDeps> {
  const { context, host, logger } = shared;
  const reviewModel = new ReviewModel(host, logger);
  const review = new ReviewProvider(reviewModel);
  const reviewView = treeView(ViewIds.review, review);
  const reviewStatus = new ReviewStatus(reviewModel);
  const reviewStatusFile = new ReviewStatusFile(path.join((context.storageUri ?? context.globalStorageUri).fsPath, STATUS_FILE_NAME), reviewModel, logger);
  const reviewComments = new ReviewComments(reviewModel, () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  reviewModel.watchJournal();
  return new Feature({ ...shared, reviewModel, review, reviewView, reviewStatus, reviewStatusFile, reviewComments }, commands, [
    reviewModel,
    review,
    reviewView,
    reviewStatus,
    reviewStatusFile,
    reviewComments,
  ]);
}
