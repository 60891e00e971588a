// The lobby: every table with live seat counts and what is left of its limit (polled), the
// "New table" form, your balance, your table sessions and your bots' API keys.

import { api } from "./api.js";
import { $, admissionName, buyInRange, chips, fill, gameName, h, limitLeft, stakes, structureName } from "./dom.js";
import { NewTable } from "./newtable.js";

const POLL_MS = 3000;

export class Lobby {
  constructor(root, { onOpen, notify }) {
    this.root = root;
    this.onOpen = onOpen;
    this.notify = notify;
    this.timer = null;
    this.tables = [];
    $("#agent-form", root).addEventListener("submit", (ev) => { ev.preventDefault(); this.createAgent(); });
    $("#sessions-refresh", root).addEventListener("click", () => this.loadSessions());
    this.newTable = new NewTable($("#new-table", root), { onOpen, onCreated: () => this.loadTables() });
    $("#new-table-open", root).addEventListener("click", () => this.newTable.open());
  }

  show() {
    this.root.hidden = false;
    this.loadTables();
    this.loadSessions();
    this.loadAgents();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.loadTables(), POLL_MS);
  }

  hide() {
    this.root.hidden = true;
    clearInterval(this.timer);
    if (this.newTable.dialog.open) this.newTable.dialog.close();
  }

  async loadTables() {
    try {
      this.tables = (await api.tables()).tables;
    } catch (err) {
      this.notify(err.message, "error");
      return;
    }
    const rows = this.tables.map((t) => h("tr", { dataset: { tableId: t.tableId } },
      h("td", {}, h("strong", {}, t.name || t.tableId), h("div", { class: "muted" }, t.tableId)),
      h("td", {}, gameName(t), h("div", { class: "muted" }, t.rulesVersion)),
      h("td", {}, structureName(t)),
      h("td", {}, stakes(t)),
      h("td", {}, buyInRange(t)),
      h("td", { class: "seats-taken" }, `${t.seatsTaken}/${t.seats}`),
      h("td", {}, h("span", { class: `admission ${t.admission.toLowerCase()}` }, admissionName(t.admission))),
      h("td", { class: "running" }, t.paused ? "paused" : t.handRunning ? h("span", { class: "live" }, "hand running") : "waiting"),
      h("td", { class: "left" }, limitLeft(t)),
      h("td", {}, h("button", { class: "primary", "aria-label": `Open table ${t.name || t.tableId}`, onclick: () => this.onOpen(t.tableId) }, "Open"))));
    fill($("#tables tbody", this.root), rows);
  }

  async loadSessions() {
    let data;
    try { data = await api.sessions(); } catch (err) { this.notify(err.message, "error"); return; }
    const rows = data.sessions.map((s) => h("tr", {},
      h("td", {}, s.tableId),
      h("td", {}, s.status),
      h("td", {}, chips(s.buyIn)),
      h("td", {}, s.status === "closed" ? chips(s.cashOut) : "—"),
      h("td", { class: s.net > 0 ? "win" : s.net < 0 ? "loss" : "" }, s.status === "closed" ? `${s.net > 0 ? "+" : ""}${chips(s.net)}` : "—"),
      h("td", {}, String(s.handsPlayed)),
      h("td", {}, new Date(s.openedAt).toLocaleString())));
    $("#granted", this.root).textContent = `The house gave you ${chips(data.granted)} chips`
      + (data.refilled ? `, ${chips(data.refilled)} of them in refills.` : " (the starting grant).");
    fill($("#sessions tbody", this.root), rows.length ? rows : [h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No sessions yet: open a table and sit down."))]);
  }

  async loadAgents() {
    let me;
    try { me = await api.me(); } catch (err) { this.notify(err.message, "error"); return; }
    const agents = me.participants.filter((p) => p.kind === "AGENT");
    fill($("#agents", this.root), agents.length
      ? agents.map((a) => h("li", {}, h("strong", {}, a.name), " ", h("span", { class: "muted" }, a.apiKeyPrefix ? `key ${a.apiKeyPrefix}…` : "key revoked")))
      : [h("li", { class: "muted" }, "No bots yet.")]);
  }

  async createAgent() {
    const input = $("#agent-name", this.root);
    const name = input.value.trim();
    if (!name) { this.notify("Give your bot a name first.", "error"); input.focus(); return; }
    let agent;
    try { agent = await api.createAgent(name); } catch (err) { this.notify(err.message, "error"); return; }
    input.value = "";
    fill($("#agent-key", this.root),
      h("p", {}, "API key for ", h("strong", {}, agent.name), " — copy it now, it is shown only once:"),
      h("code", { class: "api-key", tabindex: "0", "aria-label": "new API key" }, agent.apiKey));
    this.loadAgents();
  }
}
