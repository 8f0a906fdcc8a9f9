// Ids of queue records: 12 letters and digits (71 bits), so that none starts with "-" and every
// one can be typed after a CLI command or double-clicked in a terminal as one word.

import { customAlphabet } from 'nanoid';

export const newQueueId: () => string = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 12);
