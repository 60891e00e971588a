// Tournaments (#/tournaments, #/tournament/<id>): the open, running and finished lists; entering
// and leaving; one tournament as you see it (level, blinds, the clock, players left, average
// stack, payouts, your place, your table) and, once it ended, its results. While you play one,
// the page follows your seat: a move to another table opens that table, and your bust or win
// is said in a message.

import { api } from "./api.js";
import { $, chips, fill, h } from "./dom.js";

const POLL_MS = 2000;
const STATUS = { registering: "Open", running: "Running", paying: "Running", finished: "Finished", cancelling: "Cancelled", cancelled: "Cancelled" };
const GROUPS = [["registering", "Open"], ["running", "Running"], ["finished", "Finished"]];

const SUFFIX = ["th", "st", "nd", "rd"];
export const ordinal = (n) => `${n}${SUFFIX[(n % 100 - 20) % 10] || SUFFIX[n % 100] || SUFFIX[0]}`;

function blinds(t) {
  if (!t.blinds) return "—";
  if (t.blinds.isBreak) return "break";
  return `${chips(t.blinds.smallBlind)}/${chips(t.blinds.bigBlind)}${t.blinds.ante ? ` · ante ${chips(t.blinds.ante)}` : ""}`;
}

function clock(t, now = Date.now()) {
  if (!t.levelEndsAt) return "—";
  const s = Math.max(0, Math.round((Date.parse(t.levelEndsAt) - now) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export class Tournaments {
  constructor(root, { notify, onOpenTable, me }) {
    this.root = root;
    this.me = me;
    this.notify = notify;
    this.onOpenTable = onOpenTable;
    this.timer = null;
    this.current = null; // the tournament shown, or null for the lists
    this.followed = new Map(); // tournament id -> what we last saw of it (yourTable, busted, place)
    this.followTimer = setInterval(() => this.follow(), POLL_MS);
  }

  /** `id`: one tournament's view; null: the lists; false: hidden. */
  show(id) {
    this.root.hidden = id === false;
    clearInterval(this.timer);
    if (id === false) return;
    this.current = id;
    this.shape = null;
    const load = () => (id ? this.loadOne(id) : this.loadList());
    load();
    this.timer = setInterval(load, POLL_MS);
  }

  async loadList() {
    let all;
    try { all = (await api.tournaments()).tournaments; } catch (err) { this.notify(err.message, "error"); return; }
    const groups = GROUPS.map(([status, title]) => {
      const mine = all.filter((t) => (STATUS[t.status] || t.status) === STATUS[status]);
      return h("div", { class: "panel wide", dataset: { group: status } },
        h("h2", {}, title),
        mine.length ? h("table", { class: "grid" },
          h("thead", {}, h("tr", {}, ["Tournament", "Buy-in", "Entrants", "Prize pool", "Level", "Blinds", ""].map((c) => h("th", {}, c)))),
          h("tbody", {}, mine.map((t) => h("tr", { dataset: { tournamentId: t.tournamentId } },
            h("td", {}, h("strong", {}, t.name), h("span", { class: "muted" }, ` ${t.tournamentId}`)),
            h("td", { class: "num" }, t.buyIn ? chips(t.buyIn) : "free"),
            h("td", { class: "num" }, `${t.entrants}/${t.maxEntrants}`),
            h("td", { class: "num" }, chips(t.prizePool)),
            h("td", { class: "num" }, t.level || "—"),
            h("td", {}, blinds(t)),
            h("td", {}, h("a", { href: `#/tournament/${t.tournamentId}`, "aria-label": `open tournament ${t.name}` },
              status === "finished" ? "Results" : "Open"))))))
          : h("p", { class: "muted" }, "None."));
    });
    fill(this.root, h("h2", {}, "Tournaments"), groups);
  }

  async loadOne(id) {
    let t;
    try { t = await api.tournament(id); } catch (err) { this.notify(err.message, "error"); return; }
    if (this.current !== id) return;
    if (t.registered && !["finished", "cancelled"].includes(t.status)) this.followed.set(id, this.followed.get(id) || {});
    const playing = t.status === "running";
    const average = playing && t.playersLeft ? Math.round((t.startingChips * t.entrants) / t.playersLeft) : null;
    const facts = [
      ["Status", STATUS[t.status] || t.status],
      ["Buy-in", t.buyIn ? chips(t.buyIn) : "free"],
      ["Entrants", `${t.entrants}/${t.maxEntrants}`],
      ["Prize pool", chips(t.prizePool)],
      ["Level", t.level || "—"],
      ["Blinds", blinds(t)],
      ["Next level in", clock(t)],
      ["Players left", playing ? t.playersLeft : "—"],
      ["Average stack", average === null ? "—" : chips(average)],
      ["Payouts", t.payouts.map((p, i) => `${ordinal(i + 1)} ${p}%`).join(" · ")],
    ];
    const actions = [];
    if (t.status === "registering") {
      actions.push(t.registered
        ? h("button", { onclick: () => this.enter(id, false), "aria-label": "unregister" }, "Unregister")
        : h("button", { class: "primary", onclick: () => this.enter(id, true), "aria-label": "register" }, `Register (${t.buyIn ? chips(t.buyIn) : "free"})`));
    }
    if (t.yourTable) {
      actions.push(h("button", { class: "primary", onclick: () => this.onOpenTable(t.yourTable), "aria-label": "open your table" }, "Open your table"));
    }
    const you = t.yourPlace != null
      ? `You finished ${ordinal(t.yourPlace)}${t.yourPrize ? ` and won ${chips(t.yourPrize)} chips` : ""}.`
      : t.registered ? (t.status === "registering" ? "You are registered." : t.yourTable ? "You are playing." : "You are out; your place comes at the end.") : "";
    const placed = t.finishers.filter((f) => f.place != null).sort((a, b) => a.place - b.place);
    const shape = JSON.stringify([t, facts, you]);
    if (shape === this.shape) return; // unchanged: the buttons stay where a person aims
    this.shape = shape;
    fill(this.root,
      h("div", { class: "panel wide", id: "tournament", dataset: { status: t.status } },
        h("h2", {}, t.name, " ", h("a", { class: "link", href: "#/tournaments" }, "all tournaments")),
        h("dl", { class: "facts" }, facts.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", { dataset: { fact: k } }, String(v))))),
        h("p", { id: "your-result", role: "status" }, you),
        h("div", { class: "inline" }, actions)),
      placed.length ? h("div", { class: "panel wide", id: "results" },
        h("h2", {}, t.status === "finished" ? "Results" : "Out so far"),
        h("table", { class: "grid" },
          h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Player"), h("th", {}, "Prize"))),
          h("tbody", {}, placed.map((f) => h("tr", { dataset: { place: f.place } },
            h("td", { class: "num" }, ordinal(f.place)),
            h("td", {}, f.participantId === this.me ? "You" : f.name),
            h("td", { class: "num" }, chips(f.prize))))))) : null);
  }

  async enter(id, register) {
    try {
      if (register) {
        await api.register(id);
        this.followed.set(id, {});
        this.notify("You are registered. The tournament starts when it is full.");
      } else {
        await api.unregister(id);
        this.followed.delete(id);
        this.notify("You left the tournament; your buy-in is back.");
      }
    } catch (err) { this.notify(err.message, "error"); }
    this.loadOne(id);
  }

  /** Every tournament you play: open your new table when you are moved, say when you are out or won. */
  async follow() {
    for (const [id, seen] of this.followed) {
      let t;
      try { t = await api.tournament(id); } catch { continue; }
      const moved = t.yourTable && t.yourTable !== seen.yourTable;
      if (moved && (!seen.yourTable || location.hash === `#/table/${seen.yourTable}`)) this.onOpenTable(t.yourTable);
      const busted = !t.yourTable && t.status === "running" && t.finishers.some((f) => f.participantId === this.me && f.busted);
      if (busted && !seen.busted) this.notify(`You are out of ${t.name}. Your place comes when it ends.`);
      if (t.yourPlace != null) {
        this.notify(t.yourPlace === 1 ? `You won ${t.name}: ${chips(t.yourPrize)} chips!`
          : `You finished ${ordinal(t.yourPlace)} in ${t.name}${t.yourPrize ? `: ${chips(t.yourPrize)} chips` : ""}.`);
        this.followed.delete(id);
        continue;
      }
      if (["finished", "cancelled"].includes(t.status)) { this.followed.delete(id); continue; }
      this.followed.set(id, { yourTable: t.yourTable, busted });
    }
  }

  stop() { clearInterval(this.followTimer); clearInterval(this.timer); }
}
