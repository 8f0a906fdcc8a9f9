// Every part of the embedded ledger's schema, one stream per toolset (see SchemaStream).

import type { SchemaStream } from '../engine';
import { progressSchema } from './progress';

export const SCHEMAS: readonly SchemaStream[] = [progressSchema];
