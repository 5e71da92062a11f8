// Link cards under a message with links (`MessageView.links`): where each link goes (its host, as
// the URL parser spells it, so a look-alike international name shows as its xn-- form) and a title
// made from the message alone: the words of the link's path, else the message's text around it.
// Nothing is fetched: a preview that asked the linked site would tell it who reads the chat, and
// when. A card is a plain link that opens only when clicked, in a new tab, with no referrer or opener.

import { el, safeHref, withBidiShown } from "./dom.js";

/** At most this many cards under one message. */
const maxCards = 3;
/** A title's length in characters, at most. */
const maxTitle = 80;

/** `text` cut to `maxTitle` characters (whole code points), with "…" when cut. */
function shortened(text) {
  const characters = [...text];
  return characters.length > maxTitle ? `${characters.slice(0, maxTitle - 1).join("")}…` : text;
}

/** Words from the URL's last path segment that has a letter: "how-to-bake_bread.html" → "how to bake bread". */
export function pathTitle(url) {
  const segments = url.pathname.split("/").filter(Boolean).reverse();
  for (const segment of segments) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // not percent-encoded UTF-8: the segment as written
    }
    const words = decoded.replace(/\.(html?|php|aspx?|jsp|md|txt)$/i, "").replace(/[-_+.~]+/g, " ").replace(/\s+/g, " ").trim();
    if (/\p{L}/u.test(words) && words.length > 1) return words;
  }
  return null;
}

/** The message's text without its links, as one line: what the author said about them. */
export function textTitle(text, links) {
  let rest = text;
  for (const link of links) rest = rest.split(link).join(" ");
  rest = rest.replace(/\b(?:https?:\/\/|www\.)\S+/gi, " ").replace(/\s+/g, " ").trim();
  return rest || null;
}

/** One card per distinct link (http and https only), or null when the message has none. */
export function linkCards(view) {
  const seen = new Set();
  const cards = [];
  for (const link of view.links ?? []) {
    const href = safeHref(link);
    if (!href || seen.has(href) || cards.length === maxCards) continue;
    seen.add(href);
    const url = new URL(href);
    const host = url.host.replace(/^www\./i, "");
    const title = pathTitle(url) ?? textTitle(view.text ?? "", view.links) ?? host;
    cards.push(el("a", {
      className: "link-card",
      title: href,
      attrs: { href, target: "_blank", rel: "noopener noreferrer" },
    },
    el("span", { className: "link-host", text: host, attrs: { dir: "ltr" } }),
    el("bdi", { className: "link-title", text: shortened(withBidiShown(title)) })));
  }
  return cards.length > 0 ? el("div", { className: "link-cards" }, ...cards) : null;
}
