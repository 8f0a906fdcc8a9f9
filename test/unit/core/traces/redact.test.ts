// Secret redaction: every shape the issue names (API keys, tokens, passwords in env-like lines,
// bearer headers, private keys) and the values that must survive (counts, placeholders).

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { redactText, redactValue } from '../../../../src/core/traces/redact';

describe('secret redaction', () => {
  useTempDirs();
  const cases: [string, string, string][] = [
    ['an OpenAI key in an env line', 'OPENAI_API_KEY=sk-test-FAKE0000acmeShopDoNotUse1234567890abcdef', 'OPENAI_API_KEY=[REDACTED]'],
    ['a Stripe key', 'use sk_test_FAKE51AcmeShop000000000000000000000000 here', 'use [REDACTED] here'],
    ['an Anthropic key', 'key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123', 'key [REDACTED]'],
    ['a GitHub token', 'GH ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'GH [REDACTED]'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE', '[REDACTED]'],
    ['a password in an env line', 'DB_PASSWORD=hunter2hunter2 PORT=5432', 'DB_PASSWORD=[REDACTED] PORT=5432'],
    ['a quoted JSON secret', '{"client_secret": "a b c"}', '{"client_secret": "[REDACTED]"}'],
    ['a YAML token', 'token: abcdef123456', 'token: [REDACTED]'],
    ['a bearer header', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abc', 'Authorization: Bearer [REDACTED]'],
    ['credentials in a URL', 'postgres://app:s3cretpass@db.local:5432/app', 'postgres://app:[REDACTED]@db.local:5432/app'],
    ['a private key block', 'before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter', 'before\n[REDACTED]\nafter'],
    ['a JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt [REDACTED]'],
    ['a JWT whose header has a space ({ "alg")', 'jwt eyAiYWxnIjogIkhTMjU2IiB9.eyAic3ViIjogIjEyMyIgfQ.c2lnbmF0dXJlc2lnbmF0dXJl end', 'jwt [REDACTED] end'],
    ['a queue agent key (apk_)', 'AGENT_KEY apk_Qm9vM2Zvb2Jhcl9iYXpfcXV4X3NlY3JldF9rZXlfMTIzNDU2', 'AGENT_KEY [REDACTED]'],
    ['a lower-case bearer header', 'authorization: bearer abcdefghijklmnop', 'authorization: bearer [REDACTED]'],
    ['a URL password with @ and /', 'postgres://app:p@ss/w0rd@db.local:5432/app', 'postgres://app:[REDACTED]@db.local:5432/app'],
    ['DB_PASS, SECRET_KEY and MYSQL_PWD', 'DB_PASS=hunter2x SECRET_KEY=django-insecure-xyz MYSQL_PWD=rootpw', 'DB_PASS=[REDACTED] SECRET_KEY=[REDACTED] MYSQL_PWD=[REDACTED]'],
    ['a --password flag', 'mysql --password hunter22 -h db', 'mysql --password [REDACTED] -h db'],
    ['a quoted --db-password flag', "tool --db-password 'two words' --verbose", 'tool --db-password [REDACTED] --verbose'],
    ['curl -u user:password', 'curl -u admin:s3cr3tpw https://x', 'curl -u admin:[REDACTED] https://x'],
    ['a camelCase JSON key', '{"secretKey": "abc123xyz"}', '{"secretKey": "[REDACTED]"}'],
    ['a PGP private key block', 'a\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----\nb', 'a\n[REDACTED]\nb'],
    ['a Google OAuth token', 'tok ya29.a0AfH6SMBx3jklmnopqrstuvwxyz0123', 'tok [REDACTED]'],
    ['a Slack webhook', 'POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX done', 'POST https://[REDACTED] done'],
    [
      'an Azure AccountKey',
      'AccountName=acct;AccountKey=abc123def456ghi==;EndpointSuffix=core.windows.net',
      'AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net',
    ],
  ];
  for (const [what, input, expected] of cases) {
    it(`redacts ${what}`, () => assert.equal(redactText(input), expected));
  }

  it('leaves token counts, placeholders and ordinary words alone', () => {
    for (const text of [
      'compass: north',
      'bypass=yes',
      '--max-tokens 100',
      '--pass-file /run/pw',
      'the bearer of news',
      'output_tokens: 88, input_tokens=5',
      'max_tokens=1000',
      'token: ${GITHUB_TOKEN}',
      'password: <your password>',
      'the token was refreshed',
      'secret: true',
    ]) {
      assert.equal(redactText(text), text);
    }
  });

  it('redacts deep inside values, and whole values under secret-named keys', () => {
    assert.deepEqual(redactValue({ env: { API_KEY: 'abc', LOG_LEVEL: 'info' }, args: ['--token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'], tokens: { input: 3 } }), {
      env: { API_KEY: '[REDACTED]', LOG_LEVEL: 'info' },
      args: ['--token', '[REDACTED]'],
      tokens: { input: 3 },
    });
  });

  it('replaces whatever is nested deeper than 64 levels instead of passing it through', () => {
    let deep: unknown = { password: 'hunter2', note: 'apk_Qm9vM2Zvb2Jhcl9iYXpfcXV4X3NlY3JldF9rZXlfMTIz' };
    for (let i = 0; i < 100; i++) deep = i % 2 === 0 ? { a: deep } : [deep];
    const out = JSON.stringify(redactValue(deep));
    assert.doesNotMatch(out, /hunter2|apk_Qm9v/);
    assert.match(out, /\[REDACTED\] \(nested deeper than 64 levels\)/);
  });

  it('runs in linear time on adversarial inputs (32x the input costs about 32x the time, not 1,000x)', function () {
    this.timeout(120_000);
    // Each input repeats what a pattern starts with, so a pattern that rescans the rest of the text
    // from every start is quadratic. The bound is a ratio of two sizes, not milliseconds, and a
    // loose one: V8 picks how to run a regex by the text's size, which alone moved the time per
    // character up to seven times (ratios up to 210 here), while a quadratic pattern makes it about
    // 1,000.
    // Measured on the module bundled as the server ships it, in a plain node process.
    const inputs: [what: string, head: string, unit: string][] = [
      ['dotted names', '', 'a.'],
      ['dashed names', '', 'a-'],
      ['secret words without a value', '', 'db_password_'],
      ['URL scheme and user without @', '', 'a://b:'],
      ['URL with a long password and no @', 'a://b:', 'c'],
      ['JWT headers without payloads', '', 'eyJaaaaaaaaaaa-'],
      ['JWT header and payload without a dot', 'eyJaaaaaaaaa.eyJ', 'b'],
      ['private key headers', '', '-----BEGIN RSA PRIVATE KEY-----'],
      ['bearer words', '', 'bearer '],
      ['flags', '', '--password-'],
      ['curl users', '', '-u a:'],
      ['quoted names', '', '"password":'],
      ['open quotes after a name', 'password: "', 'x'],
      ['whitespace', 'password', ' '],
      ['azure keys', '', 'AccountKey='],
      ['token prefixes', '', 'sk-ya29.apk_ghp_xoxb-hooks.slack.com/services/'],
    ];
    const dir = tempDir();
    const bundle = path.join(dir, 'redact.js');
    buildSync({
      entryPoints: [path.resolve(__dirname, '../../../../src/core/traces/redact.ts')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
    const script = `
      const { redactText } = require(${JSON.stringify(bundle)});
      const make = (head, unit, n) => head + unit.repeat(Math.floor(n / unit.length));
      const once = (text) => { const t0 = process.hrtime.bigint(); redactText(text); return Number(process.hrtime.bigint() - t0); };
      const out = {};
      for (const [what, head, unit] of ${JSON.stringify(inputs)}) {
        const small = make(head, unit, 2000), large = make(head, unit, 64000);
        once(small); once(large); // warm up: V8 compiles a regex to native code after its first runs
        // The fastest of several alternating runs: noise from other processes only adds time.
        let s = Infinity, l = Infinity;
        for (let t = 0; t < 5; t++) { s = Math.min(s, once(small)); l = Math.min(l, once(large)); }
        out[what] = l / Math.max(s, 1);
      }
      process.stdout.write(JSON.stringify(out));`;
    const ratios = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 110_000 })) as Record<string, number>;
    assert.deepEqual(Object.keys(ratios).length, inputs.length);
    const slow = Object.entries(ratios)
      .filter(([, r]) => r > 500)
      .map(([what, r]) => `${what}: ${r.toFixed(1)}x`);
    assert.deepEqual(slow, []);
  });
});
