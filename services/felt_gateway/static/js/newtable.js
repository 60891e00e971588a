// "New table": the form a person hosts a game with (the profile's fields only, with its
// defaults), POST tables, each refusal shown next to the field it names (`details.field`), and
// once created the private table's invite link with a Copy button.

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";
import { inviteLink, remember } from "./invite.js";

// The values the form starts from for each game; what a host may choose there comes from the
// room (GET games: the rules profiles), which checks every bound again.
const DEFAULTS = {
  "nlhe-1": { smallBlind: 1, bigBlind: 2, ante: 0, seats: 6, minBuyIn: 40, maxBuyIn: 200 },
  "plhe-1": { smallBlind: 1, bigBlind: 2, ante: 0, seats: 6, minBuyIn: 40, maxBuyIn: 200, turnSeconds: 30 },
  "flhe-1": { smallBlind: 1, bigBlind: 2, ante: 0, seats: 6, minBuyIn: 40, maxBuyIn: 200, turnSeconds: 30 },
  "ante-nl-1": { seats: 10 },
  "draw5-1": { ante: 4, seats: 6, minBuyIn: 40, maxBuyIn: 200, turnSeconds: 30 },
};
const NUMBERS = ["smallBlind", "bigBlind", "ante", "seats", "minBuyIn", "maxBuyIn", "turnSeconds"];
// a refusal naming a body field the form shows under another input
const SHOWN_AT = { maxHands: "limitValue", closesInMinutes: "limitValue", limit: "limitValue", config: "name" };

export class NewTable {
  constructor(dialog, { onOpen, onCreated }) {
    this.dialog = dialog;
    this.form = $("#new-table-form", dialog);
    this.onOpen = onOpen;
    this.onCreated = onCreated;
    this.created = null;
    this.sending = false;
    const els = this.form.elements;
    els.rulesVersion.addEventListener("change", () => this.profile(true));
    els.limit.addEventListener("change", () => this.profile(false));
    this.form.addEventListener("submit", (ev) => { ev.preventDefault(); this.submit(); });
    this.form.addEventListener("input", (ev) => this.clear(ev.target.name));
    $("#new-table-cancel", dialog).addEventListener("click", () => dialog.close());
    $("#new-table-close", dialog).addEventListener("click", () => dialog.close());
    $("#new-table-go", dialog).addEventListener("click", () => { dialog.close(); this.onOpen(this.created.tableId); });
  }

  async open() {
    if (!this.games) {
      const { games } = await api.games();
      this.games = Object.fromEntries(games.map((g) => [g.rulesVersion, g]));
    }
    this.form.reset();
    this.form.hidden = false;
    $("#new-table-done", this.dialog).hidden = true;
    this.profile(true);
    this.clear();
    this.dialog.showModal();
    this.form.elements.name.focus();
  }

  /** Show the chosen profile's fields; `fresh`: fill in its defaults. */
  profile(fresh) {
    const els = this.form.elements;
    const game = this.games[els.rulesVersion.value];
    const balance = game.money === "balance";
    const shown = {
      structure: game.structures.length > 1, smallBlind: game.blinds, bigBlind: game.blinds, ante: !balance,
      minBuyIn: !balance, maxBuyIn: !balance, turnSeconds: game.fixedTurnSeconds === null, limitValue: !!els.limit.value,
    };
    for (const [name, visible] of Object.entries(shown)) $(`[data-for="${name}"]`, this.form).hidden = !visible;
    els.seats.min = game.minSeats;
    els.seats.max = game.maxSeats;
    if (fresh) for (const name of NUMBERS) els[name].value = DEFAULTS[game.rulesVersion][name] ?? "";
    els.ante.min = game.ante === "required" ? 1 : 0;
  }

  /** The POST body: only the fields the profile takes; what is left empty, the room decides. */
  body() {
    const els = this.form.elements;
    const game = this.games[els.rulesVersion.value];
    const body = {
      name: els.name.value.trim(), rulesVersion: els.rulesVersion.value, seats: numberOf(els.seats),
      admission: els.admission.value, startMode: els.startMode.value, autoRebuy: els.autoRebuy.checked,
      visibility: els.visibility.value, approval: els.approval.checked,
    };
    if (game.structures.length > 1) body.structure = els.structure.value;
    const fields = NUMBERS.filter((name) => name !== "seats" && !$(`[data-for="${name}"]`, this.form).hidden);
    for (const name of fields) if (els[name].value !== "") body[name] = numberOf(els[name]);
    if (els.limit.value) body[els.limit.value] = numberOf(els.limitValue);
    return body;
  }

  async submit() {
    if (this.sending) return;
    this.clear();
    const body = this.body();
    if (!body.name) { this.fieldError("name", "Give the table a name."); return; }
    this.sending = true;
    const button = $('button[type="submit"]', this.form);
    button.disabled = true;
    try {
      const out = await api.createTable(body);
      this.done(out);
    } catch (err) {
      this.refused(err);
    } finally {
      this.sending = false;
      button.disabled = false;
    }
  }

  /** The refusal next to the field it names (the room's `details.field`, or a validation error's
   *  location); otherwise under the form. */
  refused(err) {
    const located = (err.details?.errors || []).map((e) => e.loc?.slice(-1)[0]).find((f) => f && f !== "body");
    const field = err.details?.field || located;
    const name = SHOWN_AT[field] || field;
    if (name && this.form.elements[name] && !this.inputOf(name).closest("[hidden]")) {
      const said = err.details?.field ? err.message : err.details?.errors?.[0]?.msg || err.message;
      this.fieldError(name, said);
    } else {
      $(".form-msg", this.form).textContent = err.code === "too_many_tables"
        ? `You already host ${err.details?.limit ?? "the most"} open tables: close one first.`
        : err.message;
    }
  }

  inputOf(name) {
    const el = this.form.elements[name];
    return el instanceof RadioNodeList ? el[0] : el;
  }

  fieldError(name, text) {
    const input = this.inputOf(name);
    const label = input.closest("label, fieldset");
    const id = `error-${name}`;
    label.append(h("span", { class: "field-error", id, role: "alert" }, text));
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", id);
    input.focus();
  }

  clear(name) {
    for (const el of this.form.querySelectorAll(name ? `#error-${name}` : ".field-error")) el.remove();
    for (const el of this.form.querySelectorAll(name ? `[name="${name}"]` : "[aria-invalid]")) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    }
    if (!name) $(".form-msg", this.form).textContent = "";
  }

  done(out) {
    const table = out.table;
    this.created = table;
    if (out.inviteCode) remember(table.tableId, out.inviteCode);
    this.form.hidden = true;
    const done = $("#new-table-done", this.dialog);
    done.hidden = false;
    $("#new-table-summary", done).textContent = out.inviteCode
      ? `${table.name || table.tableId} is private: only people with this link can find it.`
      : `${table.name || table.tableId} is listed in the lobby.`;
    fill($("#new-table-invite", done), out.inviteCode ? inviteLink(out.inviteCode) : null);
    this.onCreated();
  }
}

function numberOf(input) {
  return input.value === "" ? undefined : Number(input.value);
}
