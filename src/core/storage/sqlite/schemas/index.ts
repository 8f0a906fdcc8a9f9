// Every part of the embedded ledger's schema, one stream per toolset (see SchemaStream).

import type { SchemaStream } from '../engine';
import { progressSchema } from './progress';
import { queueSchema } from './queue';
import { workflowSchema } from './workflow';
import { archiveSchema } from './archive';
import { reviewSchema } from './review';
import { hostSchema } from './host';

// Order matters where one part builds on another: queue extends the projects that progress creates.
export const SCHEMAS: readonly SchemaStream[] = [progressSchema, queueSchema, workflowSchema, archiveSchema, reviewSchema, hostSchema];
