// The HTTP session defaults, apart from http.ts so that a stdio server, which names them in its
// --help, does not load node:http, node:dns and the SDK's HTTP transport at start.

/** Sessions held at once and minutes an unused one lives, unless --max-sessions, --session-idle-minutes or the environment say otherwise. */
export const HTTP_SESSION_DEFAULTS = { maxSessions: 200, sessionIdleMinutes: 24 * 60 } as const;
