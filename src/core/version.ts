// The product version, injected by esbuild at build time; "0.0.0-dev" when run from source.

declare const AGENT_PROGRESS_VERSION: string | undefined;

export const VERSION: string = typeof AGENT_PROGRESS_VERSION === 'string' ? AGENT_PROGRESS_VERSION : '0.0.0-dev';
