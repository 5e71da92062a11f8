// Building the page without HTML strings. Every text goes in through textContent or a text node,
// so whatever a peer wrote (names, messages, poll options) shows as the characters it is and can
// never become markup: a message "<img src=x onerror=alert(1)>" stays those characters.

/**
 * Makes an element. `options`: className, text (textContent), title, attrs (plain attributes; never
 * "on…" handlers or "style"), on (event listeners), and children (nodes or strings, as text).
 */
export function el(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined && options.text !== null) node.textContent = String(options.text);
  if (options.title) node.title = String(options.title);
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (/^on/i.test(name) || name.toLowerCase() === "style") throw new Error(`refusing attribute ${name}`);
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [event, handler] of Object.entries(options.on ?? {})) node.addEventListener(event, handler);
  append(node, ...children);
  return node;
}

/** Appends nodes; strings become text nodes (never parsed). */
export function append(parent, ...children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return parent;
}

/** A button with a label and a click handler. */
export function button(label, onClick, className = "") {
  return el("button", { className, text: label, attrs: { type: "button" }, on: { click: onClick } });
}

// http(s) addresses, and www. ones (opened as https://), as the node's LinkDetector finds them.
const linkPattern = /\b(?:https?:\/\/|www\.)[^\s<>"'`]+/gi;

/** The safe href for a found link: only http and https, anything else is no link. */
export function safeHref(found) {
  const candidate = /^www\./i.test(found) ? `https://${found}` : found;
  try {
    const url = new URL(candidate);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

// Characters that reorder the text around them or cannot be seen: bidi marks, embeddings, overrides
// and isolates, zero-width characters, soft hyphens, fillers and the byte-order mark.
const unseenCharacters = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0]/g;

/** `text` with each character that reorders text or cannot be seen written out: "⟨U+202E⟩". */
export function withUnseenShown(text) {
  return text.replace(unseenCharacters, (character) => `⟨U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

// The characters that reorder text: marks, embeddings, overrides and isolates.
const bidiControls = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * `text` with each character that reorders text written out ("⟨U+202E⟩"), for a line that mixes
 * peer-written parts into one string it cannot split into runs (a node's membership line, an error
 * message naming an option, a tooltip). Zero-width joiners stay: emoji sequences keep their shape.
 */
export function withBidiShown(text) {
  return String(text).replace(bidiControls, (character) => `⟨U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

/** Text a peer wrote, as a run of its own: a right-to-left override in it ends with it. */
export function isolated(text, className = "") {
  return el("bdi", { className, text });
}

/**
 * Text with its http(s) links clickable: each link opens in a new tab, with no referrer or opener.
 * A link reads as where it goes: characters that would reorder or hide part of it are written out,
 * and it is a left-to-right run of its own.
 */
export function linkified(text) {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(linkPattern)) {
    // Trailing punctuation ends a sentence, not the address.
    const found = match[0].replace(/[.,;:!?)\]]+$/, "");
    const href = safeHref(found);
    if (!href) continue;
    fragment.append(document.createTextNode(text.slice(last, match.index)));
    fragment.append(el("a", { text: withUnseenShown(found), title: href, attrs: { href, dir: "ltr", target: "_blank", rel: "noopener noreferrer" } }));
    last = match.index + found.length;
  }
  fragment.append(document.createTextNode(text.slice(last)));
  return fragment;
}

/** "14:05" in the user's locale. */
export function clockTime(millis) {
  return new Date(millis).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** "Today", "Yesterday" or a date, for day separators. */
export function dayLabel(millis) {
  const day = new Date(millis);
  const today = new Date();
  const yesterday = new Date(today.getTime() - 86_400_000);
  if (day.toDateString() === today.toDateString()) return "Today";
  if (day.toDateString() === yesterday.toDateString()) return "Yesterday";
  return day.toLocaleDateString([], { weekday: "long", year: "numeric", month: "long", day: "numeric" });
}

/** "just now", "5 min ago", "3 h ago", or a date, for last activity and last seen. */
export function ago(millis, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - millis) / 1000));
  if (seconds < 45) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(millis).toLocaleDateString();
}

/** "2 d 3 h", "5 min 3 s", "42 s": what is left until a time. */
export function countdown(millis, now = Date.now()) {
  let seconds = Math.max(0, Math.round((millis - now) / 1000));
  const days = Math.floor(seconds / 86_400);
  seconds -= days * 86_400;
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min ${seconds} s`;
  return `${seconds} s`;
}

/** What to call a member: their name, else the first 8 hex digits of their id. */
export function displayName(name, id) {
  return name ?? (id ? id.slice(0, 8) : "someone");
}

/** A member's name (or short id) as an isolated run, for sentences that name peers. */
export function nameRun(name, id) {
  return isolated(displayName(name, id), "name");
}

/** `parts` (nodes or strings) joined as "a", "a and b", "a, b and c", for `append`. */
export function joined(parts) {
  const out = [];
  parts.forEach((part, index) => {
    if (index > 0) out.push(index === parts.length - 1 ? " and " : ", ");
    out.push(part);
  });
  return out;
}

/** The UTF-8 length of `text`: what the node's byte limits count. */
export function utf8Bytes(text) {
  return new TextEncoder().encode(text).length;
}
