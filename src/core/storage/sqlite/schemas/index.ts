// Every part of the embedded ledger's schema, one stream per toolset (see SchemaStream): progress and
// queue written for this engine, the others once for both (sql/schemas/).

import { SQLITE } from '../../sql/dialect';
import { archiveSchema } from '../../sql/schemas/archive';
import { reviewSchema } from '../../sql/schemas/review';
import { workflowSchema } from '../../sql/schemas/workflow';
import type { SchemaStream } from '../engine';
import { hostSchema } from './host';
import { progressSchema } from './progress';
import { queueSchema } from './queue';

// Order matters where one part builds on another: queue extends the projects that progress creates.
export const SCHEMAS: readonly SchemaStream[] = [progressSchema, queueSchema, workflowSchema(SQLITE), archiveSchema(SQLITE), reviewSchema(SQLITE), hostSchema];
