// The JSON Schema validator the servers hand the SDK (src/mcp/server.ts lazySchemaValidator): the
// SDK's own ajv validator, built on first use instead of in every server's constructor, answers
// as it does.

import * as assert from 'node:assert/strict';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { lazySchemaValidator } from '../../../src/mcp/server';

describe('the servers JSON Schema validator', () => {
  it('validates as the SDK default does, with the same messages', () => {
    const schema = { type: 'object', properties: { name: { type: 'string', minLength: 2 }, when: { type: 'string', format: 'date' } }, required: ['name'] } as const;
    const lazy = lazySchemaValidator().getValidator(schema);
    const plain = new AjvJsonSchemaValidator().getValidator(schema);
    for (const input of [{ name: 'ok' }, { name: 'x' }, {}, { name: 'ok', when: 'not a date' }, { name: 'ok', when: '2026-11-26' }]) {
      assert.deepEqual(lazy(input), plain(input), JSON.stringify(input));
    }
    assert.equal(lazy({ name: 'ok' }).valid, true);
    assert.match(lazy({}).errorMessage ?? '', /must have required property 'name'/);
  });
});
