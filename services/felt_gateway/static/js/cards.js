// Card faces drawn with CSS (no images, no fonts): "As" -> an ace of spades, null -> a back.

const SUITS = { s: ["♠", "spades"], h: ["♥", "hearts"], d: ["♦", "diamonds"], c: ["♣", "clubs"] };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_NAMES = { T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };

export function cardName(card) {
  const [rank, suit] = card;
  return `${RANK_NAMES[rank] || rank} of ${SUITS[suit][1]}`;
}

/** A card element; `card` null draws the back of a card nobody may see. */
export function cardElement(card, { small = false } = {}) {
  const el = document.createElement("span");
  el.className = small ? "card small" : "card";
  if (!card) {
    el.classList.add("back");
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", "face-down card");
    return el;
  }
  const [rank, suit] = card;
  const [symbol, name] = SUITS[suit];
  el.classList.add("face", name);
  el.dataset.card = card;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(card));
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = `${RANKS[rank] || rank}${symbol}`;
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.textContent = symbol;
  el.append(corner, pip);
  return el;
}
