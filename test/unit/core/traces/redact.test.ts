// Secret redaction: every shape the issue names (API keys, tokens, passwords in env-like lines,
// bearer headers, private keys) and the values that must survive (counts, placeholders).

import * as assert from 'node:assert/strict';
import { redactText, redactValue } from '../../../../src/core/traces/redact';

describe('secret redaction', () => {
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
  ];
  for (const [what, input, expected] of cases) {
    it(`redacts ${what}`, () => assert.equal(redactText(input), expected));
  }

  it('leaves token counts, placeholders and ordinary words alone', () => {
    for (const text of ['output_tokens: 88, input_tokens=5', 'max_tokens=1000', 'token: ${GITHUB_TOKEN}', 'password: <your password>', 'the token was refreshed', 'secret: true']) {
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
});
