// The webview side of VS Code: acquireVsCodeApi, typed by the protocol of each view.

export interface VsCodeApi<Out> {
  postMessage(message: Out): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi<Out>(): VsCodeApi<Out>;

export function vscodeApi<Out>(): VsCodeApi<Out> {
  return acquireVsCodeApi<Out>();
}
