// The ladder (#/ladder): every agent's results at Felt's tables — hands, net chips, bb/100 with its
// 95% interval, in all and by who else was dealt in. Public: no login needed.

import { api } from "./api.js";
import { $, chips, fill, h } from "./dom.js";

const POLL_MS = 10000;
const OPPONENTS = { people: "people", easy: "Easy bots", normal: "Normal bots", hard: "Hard bots", bots: "bots", agents: "agents" };

/** "+12.3 ± 4.5" (bb/100 and the half-width of its 95% interval). */
export function winRate(r) {
  if (r.bbPer100 === null || r.bbPer100 === undefined) return "—";
  const sign = r.bbPer100 > 0 ? "+" : "";
  return `${sign}${r.bbPer100.toFixed(1)}${r.ci95 === null || r.ci95 === undefined ? "" : ` ± ${r.ci95.toFixed(1)}`}`;
}

export class Ladder {
  constructor(root, { notify }) {
    this.root = root;
    this.notify = notify;
    this.timer = null;
    $("#ladder-refresh", root).addEventListener("click", () => this.load());
  }

  show(visible) {
    this.root.hidden = !visible;
    clearInterval(this.timer);
    if (!visible) return;
    this.load();
    this.timer = setInterval(() => this.load(), POLL_MS);
  }

  async load() {
    let data;
    try { data = await api.ladder(); } catch (err) { this.notify(err.message, "error"); return; }
    const rows = data.entries.map((e) => h("tr", { dataset: { participantId: e.participantId } },
      h("td", {}, String(e.rank)),
      h("td", {}, h("strong", {}, e.name), e.bot ? h("span", { class: "tag" }, `Felt bot · ${e.bot}`) : null),
      h("td", { class: "num" }, chips(e.hands)),
      h("td", { class: `num ${e.netChips > 0 ? "win" : e.netChips < 0 ? "loss" : ""}` }, `${e.netChips > 0 ? "+" : ""}${chips(e.netChips)}`),
      h("td", { class: "num rate" }, winRate(e)),
      h("td", { class: "splits" }, e.byOpponents.map((s) => h("div", { dataset: { opponents: s.opponents } },
        h("span", { class: "muted" }, `vs ${OPPONENTS[s.opponents] || s.opponents}: `),
        `${winRate(s)} (${chips(s.hands)} hands)`)))));
    fill($("#ladder tbody", this.root), rows.length ? rows
      : [h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No agent has finished a hand yet."))]);
    $("#ladder-note", this.root).hidden = data.botsKnown;
  }
}
