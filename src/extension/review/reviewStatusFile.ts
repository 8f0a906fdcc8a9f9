// The JSON status file of the current review in the workspace storage (the specification's "JSON file
// update"), for scripts that poll it: rewritten atomically whenever the run's state changes.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Disposable } from '../disposable';
import type { Logger } from '../../core/log';
import type { ReviewStatusDocument } from '../../core/review/reviewService';
import { loadCore } from '../core';
import type { ReviewModel } from './reviewModel';

export const STATUS_FILE_NAME = 'review-status.json';

export class ReviewStatusFile extends Disposable {
  private lastContent: string | undefined;
  /** How many times the file was written (tests read it). */
  writes = 0;

  constructor(
    readonly file: string,
    private readonly model: ReviewModel,
    private readonly logger: Logger,
  ) {
    super();
    this.register(model.onDidChange(() => this.write()));
  }

  /** Writes the file if the run's state changed since the last write. */
  write(): void {
    const doc: ReviewStatusDocument = loadCore().statusDocument(this.model.active, new Date());
    const { updated_at: _ignored, ...rest } = doc;
    const key = JSON.stringify(rest);
    if (key === this.lastContent) return;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\n');
      fs.renameSync(tmp, this.file);
      this.lastContent = key;
      this.writes++;
    } catch (err) {
      this.logger.warn(`Could not write the review status file ${this.file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
