// The search box: full-text search of this node's own messages (the `search` request), its hits
// listed under the box, and a hit opening its chat at the message. Hits are peers' text: chat names,
// author names and snippets go in as text nodes (js/dom.js), the matched words in <mark>.

import { call } from "./api.js";
import { button, displayName, el, isolated } from "./dom.js";

const pageSize = 25;
// How far back a hit's chat is paged to reach its message: 40 pages of the timeline's size.
const maxPagesBack = 40;

/**
 * Wires the search form. `chats(ids)`: the chat list's views, asked again when one of `ids` is not in
 * it yet (for their names); `open(chatId)`: opens the chat and answers its Timeline, or null;
 * `toast(text)`: reports a failure.
 */
export function searchBox({ form, input, results, chats, open, toast }) {
  let query = null;

  const close = () => {
    query = null;
    results.hidden = true;
    results.replaceChildren();
  };

  async function fetchPage(before) {
    const values = { text: query, limit: pageSize };
    if (before) values.before = before;
    return call("search", values);
  }

  function hitRow(hit, listed) {
    const message = hit.message;
    const chat = listed.find((view) => view.id === message.chat);
    const snippet = el("span", { className: "search-snippet" },
      hit.snippet.map((part) => (part.match ? el("mark", { text: part.text }) : part.text)));
    return el("button", {
      className: "search-hit", attrs: { type: "button", "data-message": message.id },
      on: { click: () => reveal(message.chat, message.id) },
    },
    el("span", { className: "search-where" },
      isolated(chat ? chat.name : message.chat.slice(0, 8), "chat-name"), " · ",
      isolated(displayName(message.authorName, message.author), "name")),
    snippet);
  }

  async function showPage(page, more) {
    const listed = await chats(page.hits.map((hit) => hit.message.chat));
    more?.remove();
    results.append(...page.hits.map((hit) => hitRow(hit, listed)));
    if (page.hits.length === 0 && results.querySelector(".search-hit") === null) {
      results.append(el("p", { className: "search-empty", text: "Nothing found" }));
    }
    if (page.next) {
      const next = button("More", async () => {
        try {
          await showPage(await fetchPage(page.next), next);
        } catch (error) {
          toast(error.message);
        }
      }, "search-more");
      results.append(next);
    }
  }

  async function reveal(chatId, messageId) {
    const timeline = await open(chatId);
    if (!timeline) return;
    // The user asked for this message: the timeline's own placement (unread or latest) gives way.
    timeline.userScrolled = true;
    const found = await reach(timeline, messageId);
    if (!found) {
      toast("That message is further back than the page loads; scroll up to reach it.");
      return;
    }
    // Marked until another hit is shown: one found message at a time.
    for (const marked of timeline.container.querySelectorAll(".search-found")) marked.classList.remove("search-found");
    found.node.classList.add("search-found");
    // Once the timeline is placed (settle pages back to fill the screen, which moves what is shown),
    // then after the frame in which it follows its newest inserts (keepAtBottomIfThere).
    for (let wait = 0; wait < 60 && !timeline.reading && !timeline.closed; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    if (timeline.closed) return;
    found.node.scrollIntoView({ block: "center" });
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) {
      close();
      return;
    }
    query = text;
    results.hidden = false;
    results.replaceChildren(button("Close search", () => { input.value = ""; close(); }, "search-close"));
    try {
      const page = await fetchPage(null);
      if (query === text) await showPage(page, null);
    } catch (error) {
      toast(error.message);
    }
  });
  input.addEventListener("search", () => { if (!input.value) close(); });
}

/**
 * The timeline's item for `id` once it is loaded: what the watch streams first, then pages back
 * (the timeline pages with `before`) until it is there or the chat's start; null if not reached.
 */
async function reach(timeline, id) {
  for (let wait = 0; wait < 40 && timeline.items.size === 0 && !timeline.reachedStart; wait += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (let page = 0; page <= maxPagesBack; page += 1) {
    const item = timeline.items.get(id);
    if (item) return item;
    if (timeline.closed || !(await timeline.loadOlder())) break;
  }
  return timeline.items.get(id) ?? null;
}
