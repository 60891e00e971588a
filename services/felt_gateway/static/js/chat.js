// Table chat: history on open, live messages from the socket, the 500-character limit
// checked before sending, and the room's own refusal (throttle, membership) shown as said.
// Messages are plain text: rendered with textContent only.

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";
import { newRequestId } from "./socket.js";

export const MAX_CHARS = 500;

export class Chat {
  constructor(root, { socket }) {
    this.root = root;
    this.socket = socket;
    this.tableId = null;
    this.seen = new Set();
    this.input = $("#chat-text", root);
    this.counter = $("#chat-count", root);
    this.status = $("#chat-status", root);
    $("#chat-form", root).addEventListener("submit", (ev) => { ev.preventDefault(); this.send(); });
    this.input.addEventListener("input", () => this.count());
    socket.addEventListener("chat", (ev) => ev.detail.tableId === this.tableId && this.add(ev.detail.message));
  }

  async open(tableId) {
    this.tableId = tableId;
    this.seen.clear();
    fill($("#chat-log", this.root));
    this.say("");
    try {
      const page = await api.chat(tableId);
      page.messages.forEach((m) => this.add(m));
    } catch (err) {
      this.say(err.message);
    }
  }

  add(message) {
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    const log = $("#chat-log", this.root);
    log.append(h("li", {}, h("span", { class: "who" }, message.displayName || "someone"), ": ", h("span", { class: "text" }, message.text)));
    log.scrollTop = log.scrollHeight;
  }

  count() {
    const n = [...this.input.value].length;
    this.counter.textContent = `${n}/${MAX_CHARS}`;
    this.counter.classList.toggle("over", n > MAX_CHARS);
    if (n <= MAX_CHARS && this.status.dataset.kind === "length") this.say("");
  }

  say(text, kind = "") {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    const n = [...text].length;
    if (n > MAX_CHARS) {
      this.say(`Your message is ${n} characters long; the limit is ${MAX_CHARS}. Shorten it to send.`, "length");
      return;
    }
    const button = $("#chat-send", this.root);
    button.disabled = true;
    try {
      await this.socket.request({ type: "chat", tableId: this.tableId, text, requestId: newRequestId("chat") });
      this.input.value = "";
      this.count();
      this.say("");
    } catch (err) {
      if (err.code === "throttled") {
        const wait = Math.ceil(err.details?.retry_after ?? 1);
        this.say(`Slow down: ${err.message}. You can post again in ${wait} s.`, "throttled");
      } else {
        this.say(err.message || "The message was not sent.", "error");
      }
    } finally {
      button.disabled = false;
    }
  }
}
