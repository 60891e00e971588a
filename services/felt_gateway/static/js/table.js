// One table on screen: subscribe over the socket, redraw from your authenticated view after
// each event, and the seat's own controls (sit down, leave, sit out / in, auto-rebuy, deal,
// show), hand results, the last hands with their histories, chat, the table's news, and the
// host's panel. A private table opened by invite is read with its code until you sit there.

import { api } from "./api.js";
import { cardElement, cardName } from "./cards.js";
import { Chat } from "./chat.js";
import { Controls } from "./controls.js";
import { $, admissionName, buyInRange, chips, fill, gameName, h, limitLeft, stakes, structureName } from "./dom.js";
import { renderFelt, tick } from "./felt.js";
import { HostPanel } from "./host.js";
import { codeFor } from "./invite.js";
import { News, announcement } from "./news.js";
import { newRequestId } from "./socket.js";

const TICK_MS = 250;
const POLL_MS = 3000; // a private table you are not subscribed to yet (watching by invite)

export class TableScreen {
  constructor(root, { socket, notify, onMoney, onLeave, me }) {
    this.root = root;
    this.me = me;
    this.invite = null; // the invite code this table was opened with
    this.pending = false; // asked to sit at an approval table; the host has not answered
    this.news = new News(root);
    this.host = new HostPanel($("#host-panel", root), { notify, refresh: () => this.refresh() });
    this.socket = socket;
    this.notify = notify;
    this.onMoney = onMoney;
    this.tableId = null;
    this.view = null;
    this.entry = null;
    this.fetching = false;
    this.dirty = false;
    this.awards = new Map(); // handId -> award events
    this.names = new Map(); // participantId -> name, kept after they leave: the last hand still shows their seat
    this.results = [];
    this.resultFor = null;
    this.chat = new Chat($("#chat", root), { socket });
    this.controls = new Controls(root, {
      act: (action, handId, turnId) => this.command({ type: "act", action, handId, turnId, requestId: `act-${handId.slice(-16)}-${turnId}` }),
      preaction: (preaction) => this.command({ type: "preaction", preaction }).catch((err) => this.notify(err.message, "error")),
    });
    this.controls.bindPreactions();
    $("#back-to-lobby", root).addEventListener("click", onLeave);
    $("#history-close", root).addEventListener("click", () => $("#history", root).close());
    socket.addEventListener("snapshot", (ev) => this.mine(ev) && this.setView(ev.detail.table));
    socket.addEventListener("event", (ev) => this.mine(ev) && this.onEvent(ev.detail.event));
    socket.addEventListener("state", (ev) => ev.detail.state === "open" && this.tableId && this.refresh());
    socket.addEventListener("error", (ev) => this.mine(ev) && this.refused(ev.detail));
  }

  mine(ev) { return this.tableId && ev.detail.tableId === this.tableId; }

  async open(tableId) {
    this.tableId = tableId;
    this.view = null;
    this.invite = codeFor(tableId);
    this.pending = false;
    this.news.clear();
    this.results = [];
    this.awards.clear();
    this.names.clear();
    this.root.hidden = false;
    fill($("#results", this.root));
    fill($(".oval", this.root), h("div", { class: "centre" }, h("div", { class: "street" }, "Opening the table…")));
    this.socket.watch(tableId);
    this.chat.open(tableId);
    this.loadHands();
    try {
      this.entry = (await api.tables()).tables.find((t) => t.tableId === tableId) || null;
    } catch { this.entry = null; }
    this.refresh();
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.view && tick($(".felt", this.root), this.view), TICK_MS);
  }

  close() {
    if (this.tableId) this.socket.unwatch(this.tableId);
    this.tableId = null;
    clearInterval(this.ticker);
    clearInterval(this.poller);
    this.root.hidden = true;
  }

  /** Redraw from the authenticated view; requests never overlap, the last event always wins. */
  async refresh() {
    if (this.fetching) { this.dirty = true; return; }
    this.fetching = true;
    try {
      do {
        this.dirty = false;
        const tableId = this.tableId;
        const { table } = await api.view(tableId, this.invite);
        if (tableId === this.tableId) this.setView(table);
      } while (this.dirty && this.tableId);
    } catch (err) {
      if (err.code === "not_found" && !this.view) {
        fill($(".oval", this.root), h("div", { class: "centre" }, h("div", { class: "street" }, "No such table: it does not exist, or it is private and you have no invite.")));
        fill($("#seat-controls", this.root));
      }
      this.notify(err.message, "error");
    } finally {
      this.fetching = false;
    }
  }

  /** A subscription the room refused: a private table is not shown on the socket until you sit
   *  there or ask to, so meanwhile the view is read with the invite code every few seconds. */
  refused(frame) {
    if (this.invite && frame.code === "not_found") {
      clearInterval(this.poller);
      this.poller = setInterval(() => this.refresh(), POLL_MS);
      return;
    }
    this.notify(frame.message, "error");
  }

  /** Subscribe again once seated or asking to sit (the view is read by invite until you sit). */
  rewatch() {
    this.socket.watch(this.tableId);
  }

  onEvent(ev) {
    if (ev.name && ev.participantId) this.names.set(ev.participantId, ev.name); // who asks to sit, before they do
    const said = announcement(ev, (pid) => this.names.get(pid) || "a player");
    if (said) this.news.say(said);
    if (ev.participantId === this.me && ["seat_declined", "player_removed"].includes(ev.kind)) {
      this.pending = false;
      this.seatShape = null;
      if (ev.kind === "seat_declined") this.notify("The host declined your request to sit.", "error");
    }
    if (ev.kind === "table_closed") this.onMoney();
    if (ev.kind === "award") {
      if (!this.awards.has(ev.handId)) this.awards.set(ev.handId, []);
      this.awards.get(ev.handId).push(ev);
    }
    if (ev.kind === "hand_end") { this.resultFor = ev.handId; this.onMoney(); }
    if (ev.kind === "show" && ev.detail === "voluntary") this.result(`${this.nameOf(ev.seat)} shows ${ev.cards.map(cardName).join(", ")}`, ev.cards);
    if (["seated", "left", "session_closed", "rebuy"].includes(ev.kind)) this.onMoney();
    this.refresh();
  }

  setView(view) {
    this.view = view;
    for (const s of view.seats) if (s.name) this.names.set(s.participantId, s.name);
    if (this.resultFor && view.hand && view.hand.handId === this.resultFor) {
      this.handResult(view.hand);
      this.resultFor = null;
      this.loadHands();
    }
    this.render();
  }

  /** Who sits at `seat`, else who played it in the hand on the felt (they may have left since). */
  nameOf(seat) {
    const person = this.view?.seats.find((s) => s.seat === seat);
    const played = this.view?.hand?.seats.find((s) => s.seat === seat);
    return person?.name || this.names.get(played?.participantId) || `Seat ${seat}`;
  }

  /** "who won which pot with which hand", from the hand's award events and the final view. */
  handResult(hand) {
    const awards = this.awards.get(hand.handId) || [];
    const pots = new Set(awards.map((a) => a.pot));
    for (const a of awards) {
      const seat = hand.seats.find((s) => s.seat === a.seat);
      const pot = pots.size > 1 ? (a.pot === 0 ? " the main pot" : ` side pot ${a.pot}`) : " the pot";
      let line;
      if (a.detail === "uncalled") line = `${this.nameOf(a.seat)} takes back ${chips(a.amount)} uncalled`;
      else if (a.detail === "refund") line = `${this.nameOf(a.seat)} gets ${chips(a.amount)} back`;
      else {
        line = `${this.nameOf(a.seat)} ${a.detail === "split" ? "splits" : "wins"}${pot}: ${chips(a.amount)}`;
        line += hand.showdown && seat?.handName ? ` with ${seat.handName}` : hand.showdown ? "" : " (everyone else folded)";
      }
      this.result(line, hand.showdown ? seat?.cards : null);
    }
    this.awards.delete(hand.handId);
  }

  result(text, cards) {
    this.results.unshift({ text, cards: cards || [] });
    this.results.length = Math.min(this.results.length, 12);
    fill($("#results", this.root), this.results.map((r) => h("li", {}, r.cards.length ? h("span", { class: "mini-cards" }, r.cards.map((c) => cardElement(c, { small: true }))) : null, r.text)));
  }

  async command(frame) {
    const answer = await this.socket.request({ requestId: newRequestId(frame.type), ...frame, tableId: this.tableId });
    this.refresh();
    return answer;
  }

  /** Send `frame`; `done` says what to tell on success, `kept(err)` what to tell for a refusal
   *  that is no failure (null: the refusal is shown as an error). */
  async run(frame, done, kept = () => null) {
    try {
      const answer = await this.command(frame);
      if (done) this.notify(typeof done === "function" ? done(answer) : done, "ok");
      this.onMoney();
    } catch (err) {
      const said = kept(err);
      this.notify(said ?? (err.message || "Refused."), said ? "ok" : "error");
    } finally {
      this.seatShape = null; // the seat's controls redrawn from the table, whatever it answered (a refused toggle)
      if (this.view) this.render();
    }
  }

  render() {
    const view = this.view;
    const config = view.config;
    const entry = this.entry || {};
    $("#table-title", this.root).textContent = config.name || config.tableId;
    $("#table-meta", this.root).textContent = [gameName(config), structureName({ structure: view.hand?.structure || config.structure || entry.structure, rulesVersion: config.rulesVersion }),
      stakes(config), `buy-in ${buyInRange(config)}`, admissionName(config.admission), view.hostId ? hostedBy(view) : null].filter(Boolean).join(" · ");
    $("#table-left", this.root).textContent = [view.closed ? "closed" : limitLeft(view), view.paused && !view.closed ? "paused" : null].filter(Boolean).join(" · ");
    this.host.render(this.tableId, view);
    const me = view.seats.find((s) => s.seat === view.yourSeatId);
    if (me) { this.pending = false; clearInterval(this.poller); }
    const hand = view.hand;
    const canSelect = !!(hand && hand.legalActions?.draw && hand.actorSeatId === view.yourSeatId && !this.controls.inFlight);
    renderFelt($(".felt", this.root), view, {
      selected: this.controls.selected, canSelect, names: this.names,
      onCard: (card) => { this.controls.toggleCard(card); this.render(); },
    });
    this.controls.render(view);
    this.renderSeatControls(view, me);
  }

  /** The seat's controls are rebuilt only when what they offer changes, not on every event: a
   *  rebuild erased a buy-in being typed, and one between a press and its release lost the click. */
  renderSeatControls(view, me) {
    const config = view.config;
    const box = $("#seat-controls", this.root);
    const hand = view.hand;
    const idle = !hand || hand.phase === "over";
    const deal = me && config.startMode === "explicit" && (idle || !me.ready) ? `${idle}:${!!me.ready}` : "";
    const shape = JSON.stringify([this.tableId, config, !!me, me?.sittingOut, !!view.autoRebuy, deal, view.canShow && hand?.handId, this.pending, view.closed]);
    if (shape === this.seatShape && box.childElementCount) return;
    this.seatShape = shape;
    const items = [];
    if (view.closed) {
      items.push(h("span", { class: "muted" }, "This table is closed."));
    } else if (!me && this.pending) {
      items.push(h("span", { class: "pending", role: "status" }, "Waiting for the host's approval…"));
    } else if (!me) {
      items.push(h("span", { class: "muted" }, "You are watching."));
      if (config.minBuyIn != null) {
        items.push(h("label", {}, "Buy-in ", h("input", { type: "number", id: "buy-in", min: config.minBuyIn, max: config.maxBuyIn, step: 1,
          placeholder: "most you can", "aria-label": `buy-in (${config.minBuyIn} to ${config.maxBuyIn}; empty: the most you can afford)` })));
      }
      if (config.autoRebuy) items.push(h("label", {}, h("input", { type: "checkbox", id: "join-rebuy", "aria-label": "auto-rebuy" }), " Auto-rebuy"));
      items.push(h("button", { class: "primary", id: "sit-down", "aria-label": "sit down", onclick: () => this.join() }, "Sit down"));
    } else {
      const away = me.sittingOut;
      items.push(away
        ? h("button", { id: "sit-in", "aria-label": "sit back in", onclick: () => this.run({ type: "sitIn" }, "Welcome back: you are dealt in from the next hand.") }, "Sit back in")
        : h("button", { id: "sit-out", "aria-label": "sit out", onclick: () => this.run({ type: "sitOut" }, "You are sitting out; your seat is kept.") }, "Sit out"));
      if (config.autoRebuy) {
        const on = !!view.autoRebuy;
        items.push(h("label", {}, h("input", { type: "checkbox", id: "auto-rebuy", checked: on, "aria-label": "auto-rebuy",
          onchange: (ev) => this.run({ type: "autoRebuy", enabled: ev.target.checked }, ev.target.checked ? "Auto-rebuy is on." : "Auto-rebuy is off.") }), " Auto-rebuy"));
      }
      // explicit tables: "Deal" between hands; while one runs, a seat not ready yet may ask to be dealt in next
      if (deal) {
        const label = me.ready ? "Ready ✓" : idle ? "Deal" : "Deal me in";
        const said = idle ? "The hand is dealt." : "Ready: you are dealt in from the next hand.";
        // alone: the table refuses the start but keeps the seat ready, and deals once another seat is
        const waiting = (err) => err.details?.reason === "not_enough_ready" ? "Ready: the hand is dealt as soon as another player is ready." : null;
        items.push(h("button", { id: "deal", class: "primary", "aria-label": "ready: deal the next hand", onclick: () => this.run({ type: "start" }, said, waiting) }, label));
      }
      if (view.canShow) {
        items.push(h("button", { id: "show", "aria-label": "show your cards", onclick: () => this.run({ type: "show", handId: hand.handId }, "You showed your cards.") }, "Show cards"));
      }
      items.push(h("button", { id: "leave", class: "danger", "aria-label": "leave the table", onclick: () => this.run({ type: "leave" }, "You left the table; you are still watching.") }, "Leave"));
    }
    fill(box, items);
  }

  async join() {
    const input = $("#buy-in", this.root);
    const frame = { type: "join" };
    if (input && input.value !== "") {
      const v = Number(input.value);
      const { minBuyIn, maxBuyIn } = this.view.config;
      if (!Number.isInteger(v) || v < minBuyIn || v > maxBuyIn) {
        this.notify(`The buy-in must be a whole number from ${chips(minBuyIn)} to ${chips(maxBuyIn)}.`, "error");
        return;
      }
      frame.buyIn = v;
    }
    const rebuy = $("#join-rebuy", this.root);
    if (rebuy && rebuy.checked) frame.autoRebuy = true;
    const seated = (answer) => `You sit in seat ${answer.seat}${answer.buyIn ? ` with ${chips(answer.buyIn)}` : ""}.`;
    if (this.invite || this.view.config.approval) await this.ask(frame, seated);
    else await this.run(frame, seated);
  }

  /** A join with the invite code (REST): at an approval table the answer is `pending` until the host decides. */
  async ask({ buyIn, autoRebuy }, seated) {
    try {
      const answer = await api.join(this.tableId, { buyIn, autoRebuy, inviteCode: this.invite || undefined });
      this.pending = answer.status === "pending";
      this.notify(this.pending ? "You asked to sit: the host decides." : seated(answer));
      this.rewatch();
      this.onMoney();
    } catch (err) {
      this.notify(err.message, "error");
    }
    this.seatShape = null;
    this.refresh();
  }

  async loadHands() {
    const tableId = this.tableId;
    let data;
    try { data = await api.hands(tableId); } catch { return; }
    if (tableId !== this.tableId) return;
    fill($("#hands", this.root), data.hands.length ? data.hands.map((hd) => h("li", {},
      h("span", {}, `${new Date(hd.endedAt).toLocaleTimeString()} · pot ${chips(hd.pot)}${hd.showdown ? " · showdown" : ""}`),
      h("button", { class: "link", "aria-label": `hand ${hd.handId} as JSON`, onclick: () => this.history(hd.handId, "json") }, "JSON"),
      h("button", { class: "link", "aria-label": `hand ${hd.handId} as PHH`, onclick: () => this.history(hd.handId, "phh") }, ".phh")))
      : [h("li", { class: "muted" }, "No finished hands yet.")]);
  }

  async history(handId, format) {
    let text;
    try {
      text = await api.hand(handId, format);
      if (format === "json") text = JSON.stringify(JSON.parse(text), null, 2);
    } catch (err) { this.notify(err.message, "error"); return; }
    const dialog = $("#history", this.root);
    $("#history-title", dialog).textContent = `Hand ${handId} (${format === "phh" ? "PHH" : "JSON"})`;
    $("#history-text", dialog).textContent = text;
    const link = $("#history-download", dialog);
    URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([text], { type: format === "phh" ? "text/plain" : "application/json" }));
    link.download = `${handId}.${format}`;
    dialog.showModal();
  }
}

function hostedBy(view) {
  const host = view.seats.find((s) => s.participantId === view.hostId);
  return host ? `hosted by ${host.name}` : "a player's table";
}
