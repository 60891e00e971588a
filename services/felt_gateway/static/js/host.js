// The host's panel at their table: pause / resume, the stakes of the next hand, requests to
// sit (accept / decline), removing a player, Felt bots of a level in and out, the invite link
// (rotate / revoke) and closing the table. Every control takes effect between hands; the room
// answers `applied: "now"` or `"next_hand"` and the panel says which.

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";
import { codeFor, inviteLink, remember } from "./invite.js";

const CONFIRM_MS = 5000;
const LEVELS = [["easy", "Easy"], ["normal", "Normal"], ["hard", "Hard"]];

export class HostPanel {
  constructor(root, { notify, refresh }) {
    this.root = root;
    this.notify = notify;
    this.refresh = refresh;
    this.shape = null;
    this.tableId = null;
  }

  /** Drawn for the host only, and rebuilt only when what it offers changes (a blind being typed stays). */
  render(tableId, view) {
    const host = view.host;
    this.root.hidden = !host || view.closed;
    if (this.root.hidden) { this.shape = null; return; }
    this.tableId = tableId;
    const seats = view.seats.map((s) => [s.participantId, s.name, s.kind]);
    const shape = JSON.stringify([tableId, host, seats, view.hostId, view.paused, codeFor(tableId), view.config.visibility]);
    if (shape === this.shape) return;
    this.shape = shape;
    const c = view.config;
    const paused = host.paused ?? !!view.paused;
    fill(this.root,
      h("h3", {}, "Host controls"),
      h("div", { class: "host-row" },
        h("span", { class: paused ? "badge away" : "badge" }, paused ? "paused" : "dealing"),
        paused
          ? h("button", { id: "host-resume", class: "primary", "aria-label": "resume the game", onclick: () => this.send("resume", {}, "The game resumes.") }, "Resume")
          : h("button", { id: "host-pause", "aria-label": "pause the game", onclick: () => this.send("pause", {}, "The table pauses.") }, "Pause")),
      this.stakesForm(c),
      this.requests(host.pendingRequests || []),
      this.players(view),
      this.addBot(),
      this.invite(view),
      h("div", { class: "host-block" }, h("button", { id: "host-close", class: "danger", "aria-label": "close the table", onclick: (ev) => this.close(ev.currentTarget) }, "Close table")));
  }

  stakesForm(c) {
    const blinds = c.bigBlind > 0;
    const field = (name, label, value) => h("label", {}, label, h("input", { type: "number", name, min: 0, step: 1, value: String(value ?? 0), "aria-label": `next hand's ${label.toLowerCase()}` }));
    const form = h("form", { class: "host-stakes", onsubmit: (ev) => { ev.preventDefault(); this.blinds(ev.target); } },
      blinds ? field("smallBlind", "Small blind", c.smallBlind) : null,
      blinds ? field("bigBlind", "Big blind", c.bigBlind) : null,
      field("ante", "Ante", c.ante),
      h("button", { type: "submit", "aria-label": "set the stakes for the next hand" }, "Set for next hand"));
    return h("div", { class: "host-block" }, h("h4", {}, "Stakes"), form);
  }

  blinds(form) {
    const body = {};
    for (const input of form.querySelectorAll("input")) body[input.name] = Number(input.value);
    this.send("blinds", body, "The stakes change");
  }

  requests(pending) {
    const rows = pending.map((r) => h("li", { dataset: { participantId: r.participantId } },
      h("span", {}, r.name || r.participantId, r.kind === "AGENT" ? " (bot)" : ""),
      h("button", { class: "primary", "aria-label": `accept ${r.name}`, onclick: () => this.send("approve", { participantId: r.participantId }, `${r.name} may sit.`) }, "Accept"),
      h("button", { class: "danger", "aria-label": `decline ${r.name}`, onclick: () => this.send("decline", { participantId: r.participantId }, `${r.name} was declined.`) }, "Decline")));
    return h("div", { class: "host-block" }, h("h4", {}, "Asking to sit"),
      h("ul", { class: "plain host-list", id: "host-requests" }, rows.length ? rows : h("li", { class: "muted" }, "Nobody is waiting.")));
  }

  players(view) {
    const bots = new Set(view.host.bots || []);
    const rows = view.seats.filter((s) => s.participantId !== view.hostId).map((s) => {
      const bot = bots.has(s.participantId);
      return h("li", {}, h("span", {}, `Seat ${s.seat}: ${s.name || s.participantId}`),
        bot
          ? h("button", { class: "danger", "aria-label": `remove bot ${s.name}`, onclick: () => this.run(api.removeBot(this.tableId, s.participantId), `${s.name} leaves the table.`) }, "Remove bot")
          : h("button", { class: "danger", "aria-label": `remove ${s.name}`, onclick: () => this.send("remove", { participantId: s.participantId }, `${s.name} is removed.`) }, "Remove"));
    });
    return h("div", { class: "host-block" }, h("h4", {}, "Players"),
      h("ul", { class: "plain host-list" }, rows.length ? rows : h("li", { class: "muted" }, "Nobody else sits here yet.")));
  }

  addBot() {
    const level = h("select", { "aria-label": "bot level" }, LEVELS.map(([value, label]) => h("option", { value }, label)));
    const add = () => this.run(api.host(this.tableId, "bots", { level: level.value }), `A ${level.value} bot takes a seat.`);
    return h("div", { class: "host-block" }, h("h4", {}, "Felt bots"),
      h("div", { class: "host-row" }, level, h("button", { "aria-label": "add a bot", onclick: add }, "Add bot")));
  }

  invite(view) {
    const code = codeFor(this.tableId);
    const block = h("div", { class: "host-block" }, h("h4", {}, "Invite"));
    if (code) block.append(inviteLink(code));
    else block.append(h("p", { class: "muted" }, view.host.invite || view.host.inviteCode
      ? "An invite link works; make a new one to see it here (the old one stops working)." : "No invite link works."));
    block.append(h("div", { class: "host-row" },
      h("button", { "aria-label": "make a new invite link", onclick: () => this.rotate() }, code ? "New link" : "Make a link"),
      code ? h("button", { class: "danger", "aria-label": "revoke the invite link", onclick: () => this.revoke() }, "Revoke") : null));
    return block;
  }

  async rotate() {
    try {
      const out = await api.rotateInvite(this.tableId);
      remember(this.tableId, out.inviteCode);
      this.notify("A new invite link: the old one stops working.");
    } catch (err) { this.notify(err.message, "error"); }
    this.shape = null;
    this.refresh();
  }

  async revoke() {
    try {
      await api.revokeInvite(this.tableId);
      remember(this.tableId, null);
      this.notify("The invite link stops working: nobody else can open the table with it.");
    } catch (err) { this.notify(err.message, "error"); }
    this.shape = null;
    this.refresh();
  }

  /** Two clicks: the first asks, the second (within a few seconds) closes. */
  close(button) {
    if (button.dataset.armed) { this.send("close", {}, "The table closes"); return; }
    button.dataset.armed = "1";
    button.textContent = "Really close? Click again";
    setTimeout(() => { delete button.dataset.armed; button.textContent = "Close table"; }, CONFIRM_MS);
  }

  send(control, body, said) {
    this.run(api.host(this.tableId, control, body), said);
  }

  /** One control's answer; `said` is what the host is told, with when it applies. */
  async run(call, said) {
    let out;
    try { out = await call; } catch (err) { this.notify(err.message, "error"); return; }
    const when = out?.applied === "next_hand" ? " when this hand ends." : ".";
    this.notify(said.replace(/\.$/, "") + when);
    this.shape = null;
    this.refresh();
  }
}
