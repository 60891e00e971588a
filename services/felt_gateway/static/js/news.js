// What the table announces: the host's changes (blinds, pause, resume, removals, approvals),
// requests to sit and the table closing, as a banner over the table and a log beside it.

import { $, chips, fill, h, stakes } from "./dom.js";

const BANNER_MS = 10000;
const CLOSED = {
  max_hands: "The table is closed after its last hand",
  closes_at: "Time is up, the table is closed",
  host: "The host closed the table",
  idle: "The table is closed, as nobody sat at it",
};
const KEEP = 30;

/** The sentence for a table event, or null for the events that are not news. `name(pid)`: who. */
export function announcement(ev, name) {
  const blinds = ev.blinds;
  switch (ev.kind) {
    case "blinds_changed":
      return `The host changed the stakes to ${stakes(blinds)} from hand ${chips(blinds.fromHand)}.`;
    case "table_paused": return "The host paused the table: no new hand is dealt until they resume.";
    case "table_resumed": return "The host resumed the game.";
    case "seat_requested": return `${ev.name || name(ev.participantId)} asks to sit.`;
    case "seat_approved": return `The host let ${name(ev.participantId)} sit.`;
    case "seat_declined": return `The host declined ${name(ev.participantId)}'s request to sit.`;
    case "player_removed": return `The host removed ${name(ev.participantId)} from the table.`;
    case "table_closed": return `${CLOSED[ev.detail] || "The table is closed"}: every seat was cashed out.`;
    default: return null;
  }
}

export class News {
  constructor(root) {
    this.banner = $("#table-notice", root);
    this.log = $("#table-log", root);
    this.lines = [];
  }

  clear() {
    this.lines = [];
    fill(this.log, h("li", { class: "muted" }, "Nothing yet."));
    this.banner.hidden = true;
  }

  say(text) {
    this.lines.unshift(h("li", {}, h("span", { class: "muted" }, new Date().toLocaleTimeString()), " ", text));
    this.lines.length = Math.min(this.lines.length, KEEP);
    fill(this.log, this.lines);
    this.banner.textContent = text;
    this.banner.hidden = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.banner.hidden = true; }, BANNER_MS);
  }
}
