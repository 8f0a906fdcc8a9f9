// The machine's load average (1, 5 and 15 minutes) as the bench tables print it beside every figure.
import os from 'node:os';

export function loadAverage(separator = ' / ') {
  return os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(separator);
}
