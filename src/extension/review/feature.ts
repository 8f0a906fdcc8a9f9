// Review runs: the Review tree, its status bar item and status file, comment threads on lines.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ViewIds } from '../commandIds';
import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
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
import { ReviewModel } from './reviewModel';
import { ReviewProvider } from './reviewProvider';
import { treeView } from '../views/treeView';
import { ReviewStatus } from './reviewStatus';
import { ReviewStatusFile, STATUS_FILE_NAME } from './reviewStatusFile';

function parts({ context, host, logger }: Shared) {
  const reviewModel = new ReviewModel(host, logger);
  const review = new ReviewProvider(reviewModel);
  const statusFile = path.join((context.storageUri ?? context.globalStorageUri).fsPath, STATUS_FILE_NAME);
  return {
    reviewModel,
    review,
    reviewView: treeView(ViewIds.review, review),
    reviewStatus: new ReviewStatus(reviewModel),
    reviewStatusFile: new ReviewStatusFile(statusFile, reviewModel, logger),
    reviewComments: new ReviewComments(reviewModel, () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath),
  };
}

export type ReviewDeps = Shared & ReturnType<typeof parts>;

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<ReviewDeps> = {
  startReview,
  refreshReview,
  approveReviewAction,
  editReviewAction,
  dismissReviewAction,
  exportReviewActions,
  openReviewThread,
  addReviewThread,
  replyReviewThread,
  resolveReviewThread,
  reopenReviewThread,
};

export function activateReview(shared: Shared, commands: Commands<ReviewDeps> = COMMANDS): Feature<ReviewDeps> {
  const feature = Feature.owning(shared, parts(shared), commands);
  feature.deps.reviewModel.watchJournal();
  return feature;
}
