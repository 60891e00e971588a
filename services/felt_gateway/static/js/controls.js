// Your turn: exactly the legal actions with their amounts, the bet/raise slider and number
// input bounded by the legal min/max with quick sizes, ante-nl-1's `hit` and add-now bet,
// the draw. Between turns: the five-card draw rules' pre-action checkboxes. One action per turn is ever
// sent: every button is disabled while it is in flight, and its requestId names the turn,
// so even a resent frame is applied once.

import { $, chips, fill, h } from "./dom.js";

// refusals that mean the turn was already over when the action arrived
const LATE = new Set(["stale_turn", "not_your_turn", "hand_closed"]);
const PREACTIONS = [["check_fold", "Check/Fold"], ["fold", "Fold"], ["call_any", "Call any"], ["raise_any", "Raise any"]];

/** What the number input means: the street total (bet/raiseTo), or ante-nl-1's chips to add now. */
function sizing(view) {
  const hand = view.hand;
  const legal = hand.legalActions;
  const bounds = legal.bet || legal.raiseTo;
  if (!bounds) return null;
  const addNow = !!legal.betAdd; // ante-nl-1: `bet N` adds N now; the table gives that range too
  const offset = addNow ? bounds.min - legal.betAdd.min : 0;
  const toCall = legal.call ?? 0;
  const potAfterCall = hand.pot + toCall;
  const quick = (fraction) => {
    const total = hand.toMatch + Math.floor(potAfterCall * fraction);
    return Math.min(bounds.max, Math.max(bounds.min, total)) - offset;
  };
  return {
    kind: legal.bet ? "bet" : "raiseTo",
    addNow,
    min: bounds.min - offset,
    max: bounds.max - offset,
    label: addNow ? "Bet +" : legal.bet ? "Bet" : "Raise to",
    quick: { half: quick(0.5), pot: quick(1), allIn: bounds.max - offset },
    frame: (amount) => (addNow ? { type: "bet", amount } : { type: legal.bet ? "bet" : "raiseTo", amount }),
  };
}

export class Controls {
  constructor(root, { act, preaction }) {
    this.root = root;
    this.act = act;
    this.setPreaction = preaction;
    this.turnKey = null;
    this.inFlight = false;
    this.selected = new Set();
    this.view = null;
    this.slider = $("#bet-slider", root);
    this.amount = $("#bet-amount", root);
    this.message = $("#action-msg", root);
    this.slider.addEventListener("input", () => { this.amount.value = this.slider.value; this.check(); });
    this.amount.addEventListener("input", () => { if (this.valid()) this.slider.value = this.amount.value; this.check(); });
    this.amount.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); this.betOrRaise(); } });
    for (const [size, label] of [["half", "½ pot"], ["pot", "Pot"], ["allIn", "All-in"]]) {
      $(`#quick-${size}`, root).addEventListener("click", () => this.quick(size));
      $(`#quick-${size}`, root).setAttribute("aria-label", `size: ${label}`);
    }
    document.addEventListener("keydown", (ev) => this.key(ev));
  }

  /** Your turn's identity; a new one resets the in-flight lock, the amount and the draw picks. */
  render(view) {
    this.view = view;
    const hand = view.hand;
    const myTurn = !!(hand && hand.legalActions && hand.phase !== "over" && hand.actorSeatId === view.yourSeatId);
    const key = myTurn ? `${hand.handId}:${hand.turnId}` : null;
    if (key !== this.turnKey) {
      this.turnKey = key;
      this.inFlight = false;
      this.selected.clear();
      if (this.message.dataset.kind !== "error") this.say(""); // a refusal stays readable after its turn
      this.size = myTurn ? sizing(view) : null;
      if (this.size) this.setAmount(this.size.min);
    }
    const bar = $("#action-bar", this.root);
    bar.hidden = !myTurn;
    bar.dataset.turn = key || "";
    this.renderButtons(view, myTurn);
    this.renderPreactions(view, myTurn);
  }

  renderButtons(view, myTurn) {
    const buttons = $("#action-buttons", this.root);
    const sizingBox = $("#sizing", this.root);
    if (!myTurn) { fill(buttons); sizingBox.hidden = true; return; }
    const hand = view.hand;
    const legal = hand.legalActions;
    const ante = hand.rulesVersion === "ante-nl-1";
    const list = [];
    if (legal.draw) {
      const n = this.selected.size;
      const ok = n >= legal.draw.min && n <= legal.draw.max;
      list.push(h("button", { class: "primary", id: "act-draw", disabled: !ok, "aria-label": n ? `discard ${n} cards and draw` : "stand pat",
        onclick: () => this.send({ type: "draw", cards: [...this.selected] }) }, n ? `Discard ${n} & draw` : "Stand pat"));
      this.say(n > legal.draw.max ? `You may discard at most ${legal.draw.max} cards.` : "Pick the cards to discard, then draw.", "hint");
    }
    if (legal.fold) list.push(h("button", { class: "fold", id: "act-fold", "aria-label": "fold (F)", onclick: () => this.send({ type: "fold" }) }, "Fold", h("kbd", {}, "F")));
    if (legal.check) list.push(h("button", { id: "act-check", "aria-label": ante ? "hit: check (C)" : "check (C)",
      onclick: () => this.send({ type: ante ? "hit" : "check" }) }, ante ? "Hit (check)" : "Check", h("kbd", {}, "C")));
    if (legal.call != null) list.push(h("button", { id: "act-call", "aria-label": `${ante ? "hit: call" : "call"} ${legal.call} (C)`,
      onclick: () => this.send({ type: ante ? "hit" : "call" }) }, `${ante ? "Hit (call" : "Call"} ${chips(legal.call)}${ante ? ")" : ""}`, h("kbd", {}, "C")));
    if (this.size) {
      list.push(h("button", { class: "primary", id: "act-raise", "aria-label": `${this.size.label} ${this.amount.value} (R)`,
        onclick: () => this.betOrRaise() }, `${this.size.label} ${chips(Number(this.amount.value))}`, h("kbd", {}, "R")));
    }
    if (legal.allIn != null) {
      list.push(h("button", { class: "allin", id: "act-allin", "aria-label": `all-in ${legal.allIn}`, onclick: () => this.send({ type: "allIn" }) }, `All-in ${chips(legal.allIn)}`));
    }
    fill(buttons, list);
    sizingBox.hidden = !this.size;
    if (this.size) {
      for (const el of [this.slider, this.amount]) { el.min = this.size.min; el.max = this.size.max; el.step = 1; }
      $("#sizing-label", this.root).textContent = this.size.label;
      $("#sizing-range", this.root).textContent = `${chips(this.size.min)}–${chips(this.size.max)}`;
    }
    this.check();
  }

  renderPreactions(view, myTurn) {
    const box = $("#preactions", this.root);
    const hand = view.hand;
    const mine = hand && hand.seats.find((s) => s.seat === view.yourSeatId);
    const show = !!(hand && hand.phase === "betting" && mine && !mine.folded && !mine.allIn && !myTurn);
    box.hidden = !show;
    if (!show) return;
    for (const [name] of PREACTIONS) $(`#pre-${name}`, box).checked = hand.preaction === name;
  }

  bindPreactions() {
    for (const [name, label] of PREACTIONS) {
      const input = $(`#pre-${name}`, this.root);
      input.setAttribute("aria-label", `pre-action: ${label}`);
      input.addEventListener("change", () => {
        for (const [other] of PREACTIONS) if (other !== name) $(`#pre-${other}`, this.root).checked = false;
        this.setPreaction(input.checked ? name : null);
      });
    }
  }

  toggleCard(card) {
    if (this.selected.has(card)) this.selected.delete(card);
    else this.selected.add(card);
  }

  setAmount(value) {
    this.amount.value = String(value);
    this.slider.value = String(value);
    this.check();
  }

  quick(size) {
    if (this.size) this.setAmount(this.size.quick[size]);
  }

  valid() {
    const v = Number(this.amount.value);
    return this.size && this.amount.value !== "" && Number.isInteger(v) && v >= this.size.min && v <= this.size.max;
  }

  /** Keep the bet button, its label and the input's message in step with the typed amount. */
  check() {
    const button = $("#act-raise", this.root);
    if (!this.size) return true;
    const ok = this.valid();
    this.amount.setAttribute("aria-invalid", ok ? "false" : "true");
    $("#amount-msg", this.root).textContent = ok ? "" : `${this.size.label} must be a whole number from ${chips(this.size.min)} to ${chips(this.size.max)}.`;
    if (button) {
      button.disabled = !ok || this.inFlight;
      button.firstChild.textContent = `${this.size.label} ${ok ? chips(Number(this.amount.value)) : "…"}`;
      button.setAttribute("aria-label", `${this.size.label} ${ok ? this.amount.value : ""} (R)`);
    }
    return ok;
  }

  betOrRaise() {
    if (!this.size) return;
    if (!this.check()) {
      this.say(`${this.size.label} must be between ${chips(this.size.min)} and ${chips(this.size.max)}; nothing was sent.`, "error");
      this.amount.focus();
      return;
    }
    this.send(this.size.frame(Number(this.amount.value)));
  }

  lock(locked) {
    this.inFlight = locked;
    for (const b of this.root.querySelectorAll("#action-buttons button, #sizing button")) b.disabled = locked;
    for (const el of [this.slider, this.amount]) el.disabled = locked;
    if (!locked) this.check();
  }

  async send(action) {
    if (this.inFlight || !this.turnKey) return;
    const hand = this.view.hand;
    const key = this.turnKey;
    this.lock(true);
    this.say("Sending…", "hint");
    try {
      await this.act(action, hand.handId, hand.turnId);
      if (this.turnKey === key) this.say("");
    } catch (err) {
      if (this.turnKey !== key) return;
      if (LATE.has(err.code)) {
        this.say("Too late: that turn is over (the clock ran out or the hand moved on). Nothing was changed.", "error");
        return; // stays locked until the next turn arrives
      }
      this.say(err.message || "The action was refused.", "error");
      this.lock(false);
    }
  }

  say(text, kind = "") {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
  }

  key(ev) {
    if (!this.turnKey || this.inFlight || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target;
    if (target.matches && target.matches("input[type=text], input[type=email], input[type=password], textarea")) return;
    if (target === this.amount && ev.key !== "Enter") return;
    const k = ev.key.toLowerCase();
    const click = (id) => { const b = $(id, this.root); if (b && !b.disabled) { ev.preventDefault(); b.click(); } };
    if (k === "f") click("#act-fold");
    else if (k === "c") { if ($("#act-check", this.root)) click("#act-check"); else click("#act-call"); }
    else if (k === "r") click("#act-raise");
  }
}
