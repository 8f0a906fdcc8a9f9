// Tests that need a program a developer's machine may lack (PostgreSQL, python3) skip without it
// there, but on CI a skip would hide a broken install: there the missing program is a failure.
// .ci/run installs each such program from Debian.

/**
 * Throws `message` on CI (env CI set, or `requireVar` when given); returns otherwise, so the
 * caller can skip. Call it where a test finds a program missing, just before skipping.
 */
export function failOnCi(message: string, requireVar?: string): void {
  if (process.env.CI || (requireVar !== undefined && process.env[requireVar])) throw new Error(message);
}
