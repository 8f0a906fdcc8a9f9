// Review definition files: JSON and the YAML subset read to the same definition, and every
// refusal names the file, the line and the field.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDefinition } from '../../../../src/core/review/definitions';
import { parseYamlLocated } from '../../../../src/core/review/sourceParse';

function refusal(source: string, content: string): string {
  try {
    parseDefinition(source, content);
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('expected a refusal');
}

describe('review definitions', () => {
  const yaml = `# Front-end review
title: "Front review"   # shown in VS Code
description: >
  Audits run on every
  merge request.
agents:
  - clean-architecture
  - name: security
    description: 'OWASP: top 10'
  - tests
phases: [pending, agents-running, synthesizing, publishing, completed, failed]
context:
  branch: feature/login
  merge_request: 4748
  notes: |
    Line one
    Line two
`;
  const json = JSON.stringify(
    {
      title: 'Front review',
      description: 'Audits run on every merge request.\n',
      agents: ['clean-architecture', { name: 'security', description: 'OWASP: top 10' }, 'tests'],
      phases: ['pending', 'agents-running', 'synthesizing', 'publishing', 'completed', 'failed'],
      context: { branch: 'feature/login', merge_request: 4748, notes: 'Line one\nLine two\n' },
    },
    null,
    2,
  );

  it('reads the same definition from YAML and from JSON', () => {
    const a = parseDefinition('.agent-progress/reviews/front.yaml', yaml);
    const b = parseDefinition('.agent-progress/reviews/front.json', json);
    assert.deepEqual({ ...a, source: '' }, { ...b, source: '' });
    assert.equal(a.name, 'front');
    assert.deepEqual(a.agents, [
      { name: 'clean-architecture', description: null },
      { name: 'security', description: 'OWASP: top 10' },
      { name: 'tests', description: null },
    ]);
    assert.deepEqual(a.context, { branch: 'feature/login', merge_request: '4748', notes: 'Line one\nLine two\n' });
    assert.equal(a.source, '.agent-progress/reviews/front.yaml');
  });

  it('defaults the phases, and keeps custom ones in their order', () => {
    assert.deepEqual(parseDefinition('r/a.yaml', 'agents: [x]\n').phases, ['pending', 'agents-running', 'synthesizing', 'publishing', 'completed', 'failed']);
    const custom = parseDefinition('r/a.yaml', 'agents: [x]\nphases:\n- pending\n- agents-running\n- triage\n- synthesizing\n- publishing\n- completed\n- failed\n');
    assert.deepEqual(custom.phases, ['pending', 'agents-running', 'triage', 'synthesizing', 'publishing', 'completed', 'failed']);
  });

  it('names the line and field of each problem', () => {
    const cases: [string, string, string][] = [
      [
        'r/a.yaml',
        'agents:\n  - ok\n  - name: "bad name!"\n',
        'r/a.yaml line 3: agents[1].name must be a name of letters, digits, . _ or - (at most 100), such as "clean-architecture"',
      ],
      ['r/a.yaml', 'title: x\n', 'r/a.yaml line 1: agents is required: the list of agents (audits) to run, in order'],
      ['r/a.yaml', 'agents: [a]\ncontext:\n  branch: main\n  pr: 3\n', 'r/a.yaml line 4: unknown field "pr" in context; accepted: branch, merge_request, notes'],
      ['r/a.yaml', 'agents:\n  - a\n  - a\n', 'r/a.yaml line 3: agents[1]: agent "a" is listed twice'],
      [
        'r/a.yaml',
        'agents: [a]\nphases: [pending, done]\n',
        'r/a.yaml line 2: phases must include pending, agents-running, synthesizing, publishing, completed, failed; missing agents-running, synthesizing, publishing, completed, failed',
      ],
      ['r/a.yaml', 'agents: []\n', 'r/a.yaml line 1: agents cannot be empty'],
      ['r/a.yaml', 'agents:\n  - a\n   - b\n', 'r/a.yaml line 3: unexpected indentation'],
      [
        'r/a.yaml',
        'agents: &x [a]\n',
        'r/a.yaml line 1: unsupported YAML ("&x [a]"): anchors, aliases, tags and flow mappings are not read here; write plain values or use a .json file',
      ],
      ['r/a.yaml', 'agents: [a]\nagents: [b]\n', 'r/a.yaml line 2: field "agents" appears twice'],
      ['r/a.json', '{\n  "agents": ["a",]\n}\n', 'r/a.json line 2: unexpected "]"'],
      ['r/a.json', '{\n  "agents": ["a"],\n  "title": 5\n}\n', 'r/a.json line 3: title must be a string'],
      ['r/a.json', '{\n  "agents": "a"\n}', 'r/a.json line 2: agents must be a list of agent names or {name, description} objects'],
      ['r/a.json', '[1]', 'r/a.json line 1: a review definition must be an object with "agents" (and optionally title, description, phases, context)'],
      ['r/a.json', '['.repeat(100_000), 'r/a.json line 1: nested more than 64 levels deep'],
      ['r/a.json', '{"agents": ["a"], "agent": 1}', 'r/a.json line 1: unknown field "agent"; accepted: title, description, agents, phases, context'],
    ];
    for (const [file, content, message] of cases) assert.equal(refusal(file, content), message, content);
  });

  it('counts the other problems after the first', () => {
    assert.match(refusal('r/a.yaml', 'title: 3\nagents: [a]\ncontext: 5\n'), /^r\/a\.yaml line 1: title must be a string \(and 1 more problem: line 3: context must be an object/);
  });

  it('reads the YAML subset: comments, quotes, block scalars, sequences of mappings', () => {
    const { value, lines } = parseYamlLocated("a: 'it''s # not a comment'  # a comment\nb:\n  - x: 1\n    y: [true, null, \"q\"]\n  - plain text: more\nc: |-\n  keep\n  lines\n");
    assert.deepEqual(value, { a: "it's # not a comment", b: [{ x: 1, y: [true, null, 'q'] }, { 'plain text': 'more' }], c: 'keep\nlines' });
    assert.equal(lines.get('b[0].y'), 4);
    assert.equal(lines.get('b[1]'), 5);
  });
});

describe('the sample review definition', () => {
  it('is a valid definition (samples/reviews/merge-request.yaml)', () => {
    const file = path.join(__dirname, '..', '..', '..', '..', 'samples', 'reviews', 'merge-request.yaml');
    const d = parseDefinition('samples/reviews/merge-request.yaml', fs.readFileSync(file, 'utf8'));
    assert.deepEqual(
      d.agents.map((a) => a.name),
      ['clean-architecture', 'security', 'tests'],
    );
    assert.equal(d.context.merge_request, null);
    assert.match(d.context.notes ?? '', /^Post findings as threads/);
  });
});
