// The page's shell: sign up / log in / log out, the header balance, the connection banner,
// messages, and the screens (#/lobby, #/table/<id>, #/tournaments, #/tournament/<id>); an invite link (/t/<code>) opens its table.

import { ApiError, api, session } from "./api.js";
import { $, chips } from "./dom.js";
import { codeInPath, follow } from "./invite.js";
import { Ladder } from "./ladder.js";
import { Lobby } from "./lobby.js";
import { Socket } from "./socket.js";
import { TableScreen } from "./table.js";
import { Tournaments } from "./tournaments.js";

let socket = null;
let lobby = null;
let table = null;
let ladder = null;
let tournaments = null;
let balanceTimer = null;
let refillBelow = Infinity; // the refill threshold, once the room said it (docs/wallet.md "Refills")
let refillId = null; // this claim's id, kept until it is answered (a retry is the same claim)

function notify(text, kind = "ok") {
  const toast = $("#toast");
  toast.textContent = text;
  toast.dataset.kind = kind;
  toast.hidden = !text;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { toast.hidden = true; }, kind === "error" ? 8000 : 4000);
}

async function loadBalance() {
  try {
    const b = await api.balance();
    $("#bal-available").textContent = chips(b.available);
    $("#bal-reserved").textContent = chips(b.reserved);
    $("#bal-inplay").textContent = chips(b.inPlay);
    const total = b.available + b.reserved + b.inPlay;
    if (total < refillBelow) await loadRefill();
    else $("#refill").hidden = true;
  } catch (err) {
    if (err.code === "unauthorized") signedOut();
  }
}

async function loadRefill() {
  const state = await api.refillState();
  refillBelow = state.below;
  const button = $("#refill");
  button.hidden = state.status !== "eligible";
  button.textContent = `Refill chips (+${chips(state.amount)})`;
}

async function claimRefill() {
  refillId = refillId || Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  try {
    const out = await api.refill(refillId);
    refillId = null;
    notify(`The house gave you ${chips(out.amount)} chips. Next refill from ${new Date(out.nextAt).toLocaleString()}.`);
  } catch (err) {
    if (err.code !== "unavailable") refillId = null; // unanswered: the next click is the same claim
    notify(err.message, "error");
  }
  loadBalance();
}

function banner(state, attempt) {
  const el = $("#banner");
  el.hidden = state === "open" || state === "closed" || state === "idle";
  el.textContent = state === "connecting" ? "Connecting to the room…"
    : `Connection lost — reconnecting${attempt > 1 ? ` (attempt ${attempt})` : ""}… Your seat is kept for a few seconds.`;
}

/** `/t/<code>`: the invite's table, then the address becomes that table's `#/table/<id>`. */
async function openInvite(code) {
  let target = "/#/lobby";
  try {
    target = `/#/table/${await follow(code)}`;
  } catch (err) {
    notify(err.code === "invite_invalid" || err.code === "not_found"
      ? "This invite link does not work: it is wrong or the host revoked it. Ask the host for a new one." : err.message, "error");
  }
  history.replaceState(null, "", target);
  route();
}

function route() {
  const onLadder = location.hash === "#/ladder";
  ladder.show(onLadder);
  if (!session.token) { $("#view-auth").hidden = onLadder; return; }
  if (!table) return;
  const code = codeInPath();
  if (code) { openInvite(code); return; }
  const one = location.hash.match(/^#\/tournament\/([a-z0-9][a-z0-9_-]{0,63})$/);
  const onTournaments = location.hash === "#/tournaments" || !!one;
  tournaments.show(onTournaments ? (one ? one[1] : null) : false);
  if (onLadder || onTournaments) { table.close(); lobby.hide(); return; }
  const match = location.hash.match(/^#\/table\/([a-z0-9][a-z0-9_-]{0,63})$/);
  if (match) {
    lobby.hide();
    if (table.tableId !== match[1]) { table.close(); table.open(match[1]); }
  } else {
    table.close();
    lobby.show();
  }
}

async function signedIn() {
  $("#view-auth").hidden = true;
  $("#account").hidden = false;
  let me = null;
  try {
    me = await api.me();
    $("#me-name").value = me.name;
  } catch (err) {
    if (err instanceof ApiError && err.code === "unauthorized") { signedOut(); return; }
  }
  socket = new Socket(session.token);
  socket.addEventListener("state", (ev) => banner(ev.detail.state, ev.detail.attempt));
  socket.addEventListener("unauthorized", () => { notify("Your login expired; log in again.", "error"); signedOut(); });
  const goLobby = () => { location.hash = "#/lobby"; };
  lobby = new Lobby($("#view-lobby"), { onOpen: (id) => { location.hash = `#/table/${id}`; }, notify });
  tournaments = new Tournaments($("#view-tournaments"), {
    notify, onOpenTable: (id) => { location.hash = `#/table/${id}`; }, me: me?.participantId,
  });
  table = new TableScreen($("#view-table"), { socket, notify, onMoney: loadBalance, onLeave: goLobby, me: me?.participantId });
  socket.connect();
  loadBalance();
  balanceTimer = setInterval(loadBalance, 5000);
  route();
}

function signedOut() {
  session.token = null;
  if (socket) socket.close();
  if (table) table.close();
  if (lobby) lobby.hide();
  if (tournaments) tournaments.stop();
  clearInterval(balanceTimer);
  location.reload();
}

async function submitAuth(ev, mode) {
  ev.preventDefault();
  const form = ev.target;
  const email = form.elements.email.value.trim();
  const password = form.elements.password.value;
  const out = $(".form-msg", form);
  out.textContent = "";
  try {
    if (mode === "signup") await api.signUp(email, password, form.elements.screenName.value.trim());
    const login = await api.logIn(email, password);
    session.token = login.token;
  } catch (err) {
    const fields = (err.details?.errors || []).map((e) => e.loc?.slice(-1)[0]).filter(Boolean);
    // a field's own rule (a screen name's) says what is wrong; a failed form check names the fields
    out.textContent = err.code === "validation" && fields.length
      ? `Check ${fields.join(" and ")}: an email address and a password of at least 8 characters.`
      : err.message;
    return;
  }
  if (!location.hash && !codeInPath()) location.hash = "#/lobby";
  signedIn();
}

async function rename(ev) {
  ev.preventDefault();
  const input = $("#me-name");
  try {
    const out = await api.rename(input.value.trim());
    input.value = out.name;
    notify(`You are now ${out.name}.`);
  } catch (err) {
    notify(err.message, "error");
  }
}

function boot() {
  $("#name-form").addEventListener("submit", rename);
  $("#refill").addEventListener("click", claimRefill);
  $("#signup-form").addEventListener("submit", (ev) => submitAuth(ev, "signup"));
  $("#login-form").addEventListener("submit", (ev) => submitAuth(ev, "login"));
  $("#logout").addEventListener("click", async () => {
    try { await api.logOut(); } catch { /* the token is dropped either way */ }
    signedOut();
  });
  window.addEventListener("hashchange", route);
  ladder = new Ladder($("#view-ladder"), { notify });
  if (session.token) signedIn();
  else {
    $("#invited").hidden = !codeInPath();
    route();
  }
}

boot();
