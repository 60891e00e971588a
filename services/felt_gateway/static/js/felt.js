// The table itself: seats around an oval (yours at the bottom), names, stacks, bets in
// front, the dealer button and blinds, cards (yours face up, others face down until shown),
// the board, every pot, and the actor's countdown and time bank.

import { cardElement } from "./cards.js";
import { $, chips, fill, h } from "./dom.js";

/** Where seat `seat` sits, as percentages of the oval: `me` at the bottom centre. */
function place(seat, me, count) {
  const angle = Math.PI / 2 + ((seat - me) * 2 * Math.PI) / count;
  return (rx, ry, turn = 0) => ({ left: `${50 + rx * Math.cos(angle + turn)}%`, top: `${50 + ry * Math.sin(angle + turn)}%` });
}

/** Seconds left on the current turn (never negative), or null without a deadline. */
export function secondsLeft(hand) {
  if (!hand || !hand.deadline || hand.phase === "over") return null;
  return Math.max(0, (Date.parse(hand.deadline) - Date.now()) / 1000);
}

/** `names`: participantId -> name of everyone seen at the table, for the seats of a player who left. */
export function renderFelt(root, view, { selected = new Set(), canSelect = false, onCard, names = new Map() } = {}) {
  const hand = view.hand;
  const count = view.config.seats;
  const me = view.yourSeatId ?? 1;
  const people = new Map(view.seats.map((s) => [s.seat, s]));
  const inHand = new Map((hand?.seats || []).map((s) => [s.seat, s]));
  const oval = $(".oval", root);
  const nodes = [];
  for (let seat = 1; seat <= count; seat += 1) {
    const at = place(seat, me, count);
    const person = people.get(seat);
    // the hand's seat belongs to whoever played it: someone who sat down since is not shown its cards
    const played = inHand.get(seat);
    const playing = played && (!person || played.participantId === person.participantId) ? played : undefined;
    nodes.push(seatNode(seat, person, playing, view, { selected, canSelect, onCard, names }, at(44, 41)));
    if (playing && playing.bet > 0) {
      nodes.push(h("div", { class: "bet", style: pos(at(27, 24)), "aria-label": `seat ${seat} bet ${playing.bet}` }, chipStack(), chips(playing.bet)));
    }
    if (hand && hand.button === seat) nodes.push(h("div", { class: "dealer", style: pos(at(30, 27, -0.45)), title: "dealer button", "aria-label": "dealer button" }, "D"));
  }
  nodes.push(centre(view));
  fill(oval, nodes);
}

const pos = (p) => `left:${p.left};top:${p.top}`;
const chipStack = () => h("span", { class: "chip", "aria-hidden": "true" });

function seatNode(seat, person, playing, view, draw, at) {
  const hand = view.hand;
  if (!person && !playing) {
    return h("div", { class: "seat empty", style: pos(at), dataset: { seat } }, h("span", { class: "muted" }, `Seat ${seat}`));
  }
  const mine = seat === view.yourSeatId;
  const acting = hand && hand.phase !== "over" && hand.actorSeatId === seat;
  const classes = ["seat"];
  if (mine) classes.push("mine");
  if (acting) classes.push("acting");
  if (playing?.folded) classes.push("folded");
  if (playing?.payout > 0) classes.push("winner");
  if (person?.sittingOut) classes.push("sitting-out");
  const name = person?.name || draw.names.get(playing?.participantId) || `Seat ${seat}`;
  const badges = [];
  if (playing && hand.smallBlindSeat === seat) badges.push(h("span", { class: "badge blind" }, "SB"));
  if (playing && hand.bigBlindSeat === seat) badges.push(h("span", { class: "badge blind" }, "BB"));
  if (playing?.allIn) badges.push(h("span", { class: "badge allin" }, "ALL-IN"));
  if (playing?.folded) badges.push(h("span", { class: "badge" }, "folded"));
  if (person?.sittingOut) badges.push(h("span", { class: "badge away" }, "sitting out"));
  if (person && person.connected === false) badges.push(h("span", { class: "badge away" }, "disconnected"));
  if (person?.status === "leaving") badges.push(h("span", { class: "badge away" }, "leaving"));
  const stack = playing && hand.phase !== "over" ? playing.stack : (person?.stack ?? playing?.stack ?? 0);
  const node = h("div", { class: classes.join(" "), style: pos(at), dataset: { seat }, "aria-label": `seat ${seat}: ${name}` },
    h("div", { class: "cards" }, holeCards(seat, playing, view, draw)),
    h("div", { class: "plate" },
      h("div", { class: "name" }, name),
      h("div", { class: "stack", "aria-label": `stack ${stack}` }, chips(stack)),
      badges.length ? h("div", { class: "badges" }, badges) : null,
      playing?.handName ? h("div", { class: "hand-name" }, playing.handName) : null,
      playing?.payout > 0 ? h("div", { class: "payout" }, `wins ${chips(playing.payout)}`) : null),
    acting ? clock(hand) : null);
  return node;
}

function holeCards(seat, playing, view, { selected, canSelect, onCard }) {
  if (!playing || playing.folded) return [];
  const mine = seat === view.yourSeatId;
  const cards = playing.cards || (mine ? view.hand.holeCards : null);
  if (!cards) return Array.from({ length: playing.cardCount }, () => cardElement(null, { small: true }));
  return cards.map((card) => {
    const el = cardElement(card, { small: !mine });
    if (mine && canSelect) {
      const button = h("button", { class: `card-pick${selected.has(card) ? " picked" : ""}`, type: "button",
        "aria-pressed": selected.has(card) ? "true" : "false", "aria-label": `discard ${el.getAttribute("aria-label")}`,
        onclick: () => onCard(card) }, el);
      return button;
    }
    return el;
  });
}

function clock(hand) {
  const left = secondsLeft(hand);
  const bank = hand.inTimeBank ? "time bank" : hand.timeBankSeconds ? `+${Math.round(hand.timeBankSeconds)} s bank` : "";
  return h("div", { class: `clock${hand.inTimeBank ? " bank" : ""}`, role: "timer", "aria-label": "time left" },
    h("div", { class: "bar", style: `width:${Math.min(100, (left ?? 0) / 0.3)}%` }),
    h("span", { class: "left" }, left === null ? "" : left > 0 ? `${Math.ceil(left)} s` : "time!"),
    bank ? h("span", { class: "bank-left" }, bank) : null);
}

function centre(view) {
  const hand = view.hand;
  const board = h("div", { class: "board", "aria-label": "board" }, (hand?.board || []).map((c) => cardElement(c)));
  const pots = [];
  if (hand && hand.phase !== "over") {
    const list = hand.pots?.length ? hand.pots : [];
    list.forEach((p, i) => pots.push(h("div", { class: "pot", dataset: { pot: i } }, chipStack(),
      `${i === 0 ? "Main pot" : list.length > 2 ? `Side pot ${i}` : "Side pot"}: ${chips(p.amount)}`)));
    if (hand.pot) pots.push(h("div", { class: "pot total" }, `Total ${chips(hand.pot)}`));
  }
  let status = "";
  if (!hand) status = view.seats.length < 2 ? "Waiting for players" : "Waiting for the next hand";
  else if (hand.phase === "over") status = hand.showdown ? "Showdown" : "Hand over";
  else status = hand.phase === "draw" ? "Draw" : streetName(hand.street);
  if (view.paused && (!hand || hand.phase === "over")) status += ` · paused: ${view.paused}`;
  else if (view.nextHandAt && (!hand || hand.phase === "over")) {
    const s = Math.max(0, Math.ceil((Date.parse(view.nextHandAt) - Date.now()) / 1000));
    status += ` · next hand in ${s} s`;
  }
  return h("div", { class: "centre" }, h("div", { class: "street" }, status), board, h("div", { class: "pots" }, pots));
}

const STREETS = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River" };
const streetName = (s) => STREETS[s] || (s ? s[0].toUpperCase() + s.slice(1) : "");

/** Once a quarter second: the countdown and the intermission, without redrawing the seats. */
export function tick(root, view) {
  const running = $(".seat.acting .clock", root);
  if (running && view.hand) running.replaceWith(clock(view.hand));
  const status = $(".centre", root);
  if (status) status.replaceWith(centre(view));
}
