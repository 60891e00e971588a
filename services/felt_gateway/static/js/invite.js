// Invites to private tables: the link `/t/<code>` with a Copy button, and opening one (the page
// is served at that path too). The code of each table is kept for this tab, because a private
// table's view and its join need it until you sit there.

import { api } from "./api.js";
import { h } from "./dom.js";

const KEY = "felt.invite.";
const PATH = /^\/t\/([A-Za-z0-9_-]{4,128})\/?$/;

export const codeFor = (tableId) => sessionStorage.getItem(KEY + tableId);
export function remember(tableId, code) {
  if (code) sessionStorage.setItem(KEY + tableId, code);
  else sessionStorage.removeItem(KEY + tableId);
}

export const inviteUrl = (code) => `${location.origin}/t/${code}`;

/** The link as a read-only field with a Copy button (select-and-copy where the clipboard is refused). */
export function inviteLink(code) {
  const field = h("input", { class: "invite-url", readOnly: true, value: inviteUrl(code), "aria-label": "invite link", onfocus: (ev) => ev.target.select() });
  const said = h("span", { class: "muted copy-said", role: "status" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      said.textContent = "Copied: send it to your friends.";
    } catch {
      field.select();
      said.textContent = "Select the link and copy it (Ctrl+C).";
    }
  };
  return h("div", { class: "invite" }, field, h("button", { type: "button", class: "primary", "aria-label": "copy the invite link", onclick: copy }, "Copy"), said);
}

/** The code in the address (`/t/<code>`), or null. */
export function codeInPath() {
  const match = location.pathname.match(PATH);
  return match ? match[1] : null;
}

/** The table an invite code opens (kept for this tab); refusals as the room says them (`invite_invalid`). */
export async function follow(code) {
  const { tableId } = await api.invite(code);
  remember(tableId, code);
  return tableId;
}
