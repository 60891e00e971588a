// The WebSocket /ws (docs/protocol.md): authenticate, send commands with a requestId and
// await their `result` / `error`, keep the highest `seq` per table, and after a dropped
// connection reconnect and subscribe again with `lastSeq` so nothing is missed.

const PING_MS = 15000;
const ANSWER_MS = 10000;
const BACKOFF_MS = [300, 700, 1500, 3000, 5000];

let counter = 0;
export const newRequestId = (prefix = "r") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export class Socket extends EventTarget {
  constructor(token) {
    super();
    this.token = token;
    this.ws = null;
    this.state = "idle"; // idle | connecting | open | reconnecting | closed
    this.pending = new Map(); // requestId -> {resolve, reject, timer}
    this.tables = new Map(); // tableId -> {lastSeq}
    this.attempt = 0;
    this.pinger = null;
  }

  connect() {
    this.setState(this.attempt ? "reconnecting" : "connecting");
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token: this.token }));
    ws.onmessage = (msg) => this.receive(JSON.parse(msg.data));
    ws.onclose = (ev) => this.closed(ws, ev);
  }

  close() {
    this.setState("closed");
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(1000, "bye");
  }

  setState(state) {
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: { state, attempt: this.attempt } }));
  }

  closed(ws, ev) {
    if (ws !== this.ws) return;
    clearInterval(this.pinger);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject({ code: "disconnected", message: "The connection dropped before the room answered.", requestId: id });
    }
    this.pending.clear();
    if (this.state === "closed") return;
    if (ev.code === 4401) {
      this.setState("closed");
      this.dispatchEvent(new CustomEvent("unauthorized"));
      return;
    }
    const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.setState("reconnecting");
    setTimeout(() => this.state !== "closed" && this.connect(), wait);
  }

  receive(frame) {
    if (frame.type === "hello") {
      this.hello = frame;
      this.attempt = 0;
      this.setState("open");
      this.pinger = setInterval(() => this.send({ type: "ping", t: Date.now() }), PING_MS);
      for (const [tableId, sub] of this.tables) this.resubscribe(tableId, sub);
      return;
    }
    if (frame.type === "event" || frame.type === "snapshot") {
      const sub = this.tables.get(frame.tableId);
      if (sub) sub.lastSeq = Math.max(sub.lastSeq ?? 0, frame.seq);
    }
    const waiting = frame.requestId && this.pending.get(frame.requestId);
    if (waiting && ["result", "error", "subscribed", "unsubscribed"].includes(frame.type)) {
      this.pending.delete(frame.requestId);
      clearTimeout(waiting.timer);
      if (frame.type === "error") waiting.reject(frame);
      else waiting.resolve(frame);
      return;
    }
    this.dispatchEvent(new CustomEvent(frame.type, { detail: frame }));
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.state === "open") {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  /** Send a command and wait for its answer; rejects with the error frame. */
  request(frame) {
    const requestId = frame.requestId || newRequestId(frame.type);
    return new Promise((resolve, reject) => {
      if (!this.send({ ...frame, requestId })) {
        reject({ code: "disconnected", message: "Not connected to the room; reconnecting…", requestId });
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject({ code: "timeout", message: "The room did not answer in time.", requestId });
      }, ANSWER_MS);
      this.pending.set(requestId, { resolve, reject, timer });
    });
  }

  watch(tableId) {
    if (!this.tables.has(tableId)) this.tables.set(tableId, { lastSeq: null });
    if (this.state === "open") this.resubscribe(tableId, this.tables.get(tableId));
  }

  unwatch(tableId) {
    if (this.tables.delete(tableId)) this.send({ type: "unsubscribe", tableId });
  }

  resubscribe(tableId, sub) {
    const frame = { type: "subscribe", tableId };
    if (sub.lastSeq !== null) frame.lastSeq = sub.lastSeq;
    this.request(frame).catch((err) => this.dispatchEvent(new CustomEvent("error", { detail: { ...err, tableId } })));
  }
}
