// A face for each peer and chat: one or two initials on a colour taken from the id, so the same
// person has the same colour on every page and in every place (chat list, messages, members). The
// colours are a fixed palette of classes in style.css, each readable in both themes; the initials
// are letters or digits taken from the name (never its other characters: no override or invisible
// character reaches the circle), and the circle is hidden from screen readers, which read the name
// beside it.

import { el } from "./dom.js";

/** How many colours the palette has (`.hue-0` … in style.css). */
export const hueCount = 10;

/** The palette index for an id: its first 32 bits (hex) modulo the palette's size. */
export function hueOf(id) {
  const head = /^[0-9a-f]{8}/i.exec(String(id ?? ""));
  return head ? parseInt(head[0], 16) % hueCount : 0;
}

/** The first letter or digit of the name's first two words, upper-cased; else the id's first two digits. */
export function initials(name, id) {
  const firsts = String(name ?? "").split(/\s+/).map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0]).filter(Boolean);
  const letters = firsts.slice(0, 2).join("").toLocaleUpperCase();
  if (letters) return [...letters].slice(0, 2).join("");
  return id ? String(id).slice(0, 2).toUpperCase() : "?";
}

/** The circle for `id` (a peer's or a chat's hex id) named `name`; `size` is "small" or "" (list size). */
export function avatar(id, name, size = "") {
  return el("span", {
    className: `avatar hue-${hueOf(id)}${size ? ` ${size}` : ""}`,
    text: initials(name, id),
    attrs: { "aria-hidden": "true" },
  });
}
