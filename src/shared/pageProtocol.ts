// What every webview page shares with the host, whatever its own protocol: the host tells the page
// which item it shows, and the page keeps that as its webview state, so that after a window reload
// VS Code hands it back to the page's serializer, which opens the same item again.

/** The item a page shows: its key and an optional hint for loading it (an entry's project). */
export interface PageState {
  key: string;
  hint?: string;
}

export interface PageStateMessage {
  type: 'pageState';
  state: PageState;
}
