// The scope check: areas as names, paths and globs; the specification's own example and warning text.

import * as assert from 'node:assert/strict';
import { scopeFor, verifyScope } from '../../../../src/core/workflow/scope';

const files = (modified: string[], renamed: { from: string; to: string }[] = []) => ({
  added: [],
  modified,
  deleted: [],
  renamed: renamed.map((r) => ({ ...r, similarity: 100 })),
});

describe('scope check', () => {
  it("gives the seed's example: utils.ts is outside areas auth and api", () => {
    assert.deepEqual(verifyScope(files(['auth.ts', 'api.ts', 'utils.ts']), ['auth', 'api']), {
      scope_match: false,
      scope_checked: true,
      unexpected_files: ['utils.ts'],
      warnings: ['⚠️ 1 file(s) modified outside declared scope (auth, api)'],
    });
  });

  it('matches a name as any folder or file name, ignoring case and extensions', () => {
    const s = scopeFor(['auth']);
    for (const f of ['src/auth/login.ts', 'auth.ts', 'tests/Auth.test.ts', 'AUTH/x']) assert.ok(s.inScope(f), f);
    for (const f of ['src/authz/x.ts', 'oauth.ts', 'src/author.ts']) assert.ok(!s.inScope(f), f);
    assert.ok(scopeFor(['package.json']).inScope('web/package.json'), 'a name with a dot is a file name anywhere');
  });

  it('matches a path as that folder or file from the root', () => {
    const s = scopeFor(['src/api', './docs/']);
    for (const f of ['src/api/users.ts', 'src/api', 'docs/index.md']) assert.ok(s.inScope(f), f);
    for (const f of ['src/apis/x.ts', 'lib/src/api/x.ts']) assert.ok(!s.inScope(f), f);
  });

  it('matches globs: with a slash against the path, without one against any name', () => {
    const s = scopeFor(['src/**/*.test.ts', '*.md']);
    for (const f of ['src/a/b/c.test.ts', 'src/c.test.ts', 'README.md', 'docs/guide/intro.md']) assert.ok(s.inScope(f), f);
    for (const f of ['src/a/c.ts', 'test/c.test.ts']) assert.ok(!s.inScope(f), f);
    assert.ok(scopeFor(['src/*']).inScope('src/deep/file.ts'), 'a folder matched by a glob covers what it holds');
  });

  it("reads areas from the server's subfolder of the repository too", () => {
    const s = scopeFor(['src/components'], 'packages/web');
    assert.ok(s.inScope('packages/web/src/components/Button.tsx'));
    assert.ok(!s.inScope('packages/api/src/components/x.ts'));
  });

  it('checks both ends of a rename', () => {
    const v = verifyScope(files([], [{ from: 'src/auth/a.ts', to: 'lib/a.ts' }]), ['auth']);
    assert.deepEqual(v.unexpected_files, ['lib/a.ts']);
  });

  it('says the scope was not checked, instead of that it matched, without areas or without the files changed', () => {
    const unchecked = (why: string) => ({ scope_match: null, scope_checked: false, unexpected_files: [], warnings: [why] });
    assert.deepEqual(verifyScope(files(['x.ts']), []), unchecked('No areas were declared at start_task, so the scope was not checked.'));
    assert.deepEqual(verifyScope(files([]), []), unchecked('No areas were declared at start_task, so the scope was not checked.'));
    assert.deepEqual(verifyScope(files([]), ['auth'], '', false), unchecked('The files changed are not known, so the scope was not checked.'));
    assert.deepEqual(verifyScope(files([]), ['auth']), { scope_match: true, scope_checked: true, unexpected_files: [], warnings: [] });
  });
});
