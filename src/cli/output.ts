// Where CLI output goes: results on stdout (text or JSON), messages on stderr.

export interface Output {
  line(text: string): void;
  json(value: unknown): void;
  error(text: string): void;
}

export const processOutput: Output = {
  line: (text) => process.stdout.write(text + '\n'),
  json: (value) => process.stdout.write(JSON.stringify(value, null, 2) + '\n'),
  error: (text) => process.stderr.write(text + '\n'),
};
