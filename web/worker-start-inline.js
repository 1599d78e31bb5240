// The single-file build's worker: its code (engine and wasm included) is inlined in the page and
// started from a blob, so the page runs from file:// with no server.
import EngineWorker from './worker.js?worker&inline';

export const startWorker = () => new EngineWorker();
