// The progress toolset's limits (Agent Progress Tracker specification), apart from its zod schemas
// (./schemas) so that what needs only the numbers (the summariser) does not build the schemas.

export const LIMITS = {
  projectId: 100,
  title: 100,
  content: 10_000,
  summary: 500,
  tags: 10,
  tag: 50,
  agentId: 100,
  entryId: 100,
  query: 200,
  text: 500,
  searchLimit: 100,
  defaultSearchLimit: 20,
} as const;
