// One chat's timeline: messages and poll cards in history order (history clock, author, sequence,
// the order every node lists them in), day separators, reply quotes, reactions and delivery ticks.
// Items are built once and updated in place, so a live update never disturbs what the user types.

import { call } from "./api.js";
import { button, clockTime, dayLabel, displayName, el, linkified } from "./dom.js";
import { pollCard, refreshPollCard } from "./polls.js";

export const quickReactions = ["👍", "❤️", "😂", "😮", "🎉"];
const pageSize = 50;

/** Negative, zero or positive as `a` comes before, with or after `b` in history. */
export function compareHistory(a, b) {
  // The history clock, not the claimed one: an author's later message never sorts before its earlier one.
  if (a.historyClock !== b.historyClock) return a.historyClock - b.historyClock;
  if (a.author !== b.author) return a.author < b.author ? -1 : 1;
  return a.sequence - b.sequence;
}

/** How many members read an own message, when the node reports it (`readBy`: a count or a list). */
function readCount(view) {
  if (Array.isArray(view.readBy)) return view.readBy.length;
  return typeof view.readBy === "number" ? view.readBy : 0;
}

export class Timeline {
  /**
   * `chat`: the chat view; `me`: this user's id; `actions`: reply(view), note(view), receipts(view),
   * toast(text), poll context (see polls.js).
   */
  constructor({ container, chat, me, actions }) {
    this.container = container;
    this.chat = chat;
    this.me = me;
    this.actions = actions;
    this.items = new Map(); // id → { order, timestamp, kind, view, node, article, reactions }
    this.order = []; // ids in history order
    this.waitingQuotes = new Map(); // referenced id → ids of the replies quoting it
    this.reachedStart = false;
    this.loadingOlder = false;
    this.reactionQueue = [];
    this.reactionWorkers = 0;
    this.stickAfterFrame = null; // whether to scroll to the bottom once this frame's inserts are in
    container.replaceChildren();
    container.addEventListener("scroll", () => {
      if (container.scrollTop < 80) this.loadOlder();
    });
  }

  get oldestId() {
    return this.order[0] ?? null;
  }

  nearBottom() {
    const { scrollTop, scrollHeight, clientHeight } = this.container;
    return scrollHeight - scrollTop - clientHeight < 120;
  }

  /** A message view (text, link, custom or membership): added, or its state updated. */
  upsertMessage(view) {
    const existing = this.items.get(view.id);
    if (existing) {
      existing.view = view;
      this.renderMessage(existing);
      return;
    }
    const item = { order: view, timestamp: view.timestampMillis, kind: "message", view, reactions: [] };
    this.insert(item, () => this.renderMessage(item));
    if (view.kind !== "membership" && !view.sealed) this.queueReactions(view.id);
  }

  /** A poll's current results: its card added, or redrawn with the new tally. */
  upsertPoll(results) {
    const existing = this.items.get(results.id);
    if (existing) {
      existing.view = results;
      refreshPollCard(existing.article, results, this.pollContext());
      this.renderReactions(existing);
      return;
    }
    const item = {
      order: { historyClock: results.historyClock, author: results.author, sequence: results.sequence },
      timestamp: results.createdAtMillis, kind: "poll", view: results, reactions: [],
    };
    this.insert(item, () => {
      item.article = pollCard(results, this.pollContext());
      return item.article;
    });
    this.queueReactions(results.id);
  }

  pollContext() {
    return { chat: this.chat.id, me: this.me, toast: this.actions.toast, onChanged: (view) => this.upsertPoll(view) };
  }

  /** A message's reaction groups changed (a watch event or an answer to `reactions`). */
  applyReactions(message, groups) {
    const item = this.items.get(message);
    if (!item) return;
    item.reactions = groups;
    this.renderReactions(item);
  }

  /** Places a new item by history order, with its day separator. */
  insert(item, build) {
    const id = item.view.id;
    this.keepAtBottomIfThere();
    let index = this.order.length;
    while (index > 0 && compareHistory(this.items.get(this.order[index - 1]).order, item.order) > 0) index -= 1;
    item.node = el("div", { className: "item", attrs: { "data-id": id } });
    item.separator = el("div", { className: "day", attrs: { role: "separator" } });
    build();
    item.node.append(item.separator, item.article);
    const next = this.order[index];
    this.container.insertBefore(item.node, next ? this.items.get(next).node : null);
    this.order.splice(index, 0, id);
    this.items.set(id, item);
    this.updateSeparator(index);
    this.updateSeparator(index + 1);
    // Replies that were waiting for this message can quote it now.
    for (const reply of this.waitingQuotes.get(id) ?? []) {
      const replying = this.items.get(reply);
      if (replying) this.renderMessage(replying);
    }
    this.waitingQuotes.delete(id);
  }

  /**
   * The watch's backlog arrives as dozens of inserts at once: where the view was is read once (one
   * layout) before the first of them, and the view follows the newest after the last, in one frame.
   */
  keepAtBottomIfThere() {
    if (this.stickAfterFrame !== null) return;
    this.stickAfterFrame = this.nearBottom();
    requestAnimationFrame(() => {
      if (this.stickAfterFrame) this.scrollToBottom();
      this.stickAfterFrame = null;
    });
  }

  /** A day separator above the item at `index` when its day differs from the one before it. */
  updateSeparator(index) {
    const id = this.order[index];
    if (!id) return;
    const item = this.items.get(id);
    const previous = index > 0 ? this.items.get(this.order[index - 1]) : null;
    const day = new Date(item.timestamp).toDateString();
    const newDay = !previous || new Date(previous.timestamp).toDateString() !== day;
    item.separator.hidden = !newDay;
    item.separator.textContent = newDay ? dayLabel(item.timestamp) : "";
  }

  scrollToBottom() {
    this.container.scrollTop = this.container.scrollHeight;
  }

  renderMessage(item) {
    const view = item.view;
    const own = view.author === this.me;
    if (view.kind === "membership") {
      const line = el("div", { className: "system", text: view.text, title: clockTime(view.timestampMillis) });
      item.article?.replaceWith(line);
      item.article = line;
      return line;
    }
    const article = el("article", { className: `message${own ? " own" : ""}`, attrs: { "data-id": view.id } });
    const meta = el("div", { className: "meta" },
      el("span", { className: "author", text: own ? "You" : displayName(view.authorName, view.author) }),
      el("time", { text: clockTime(view.timestampMillis), attrs: { datetime: new Date(view.timestampMillis).toISOString() } }));
    if (own) meta.append(this.ticks(view));
    article.append(meta);
    const quote = this.quote(view);
    if (quote) article.append(quote);
    if (view.sealed) {
      article.append(el("p", { className: "body sealed", text: "🔒 Sealed: this device holds no key for it." }));
    } else if (view.kind === "custom") {
      article.append(el("pre", { className: "body custom", text: view.text }));
    } else {
      article.append(el("p", { className: "body" }, linkified(view.text)));
    }
    item.reactionsNode = el("div", { className: "reactions" });
    article.append(item.reactionsNode);
    const actions = el("div", { className: "actions" },
      button("Reply", () => this.actions.reply(view)),
      button("Note", () => this.actions.note(view)));
    if (own) actions.append(button("Receipts", () => this.actions.receipts(view)));
    article.append(actions);
    item.article?.replaceWith(article);
    item.article = article;
    this.renderReactions(item);
    return article;
  }

  /** ◷ waiting, ✓ sent, ✓✓ delivered to every member, blue ✓✓ read (when the node reports reads). */
  ticks(view) {
    const others = Math.max(0, this.chat.members.length - 1);
    const reads = readCount(view);
    let text = "◷", title = "Waiting to be sent", className = "ticks";
    if (view.state === "sent") [text, title] = ["✓", view.deliveredTo > 0 ? `Delivered to ${view.deliveredTo} of ${others}` : "Sent"];
    if (view.state === "delivered") [text, title] = ["✓✓", "Delivered"];
    if (reads > 0) [text, title, className] = ["✓✓", `Read by ${reads}`, "ticks read"];
    return el("span", { className, text, title, attrs: { "aria-label": title } });
  }

  /** A reply's quote of the message it references (or a placeholder until that one is loaded). */
  quote(view) {
    const reference = view.references.find((ref) => ref.tag === "Text" || ref.tag === "Custom" || ref.tag === "Poll");
    if (!reference) return null;
    const target = this.items.get(reference.id);
    if (!target) {
      const waiting = this.waitingQuotes.get(reference.id) ?? new Set();
      waiting.add(view.id);
      this.waitingQuotes.set(reference.id, waiting);
      return el("blockquote", { className: "quote missing", text: "Reply to an earlier message (scroll up to load it)" });
    }
    const quoted = target.view;
    const author = quoted.authorName;
    const text = target.kind === "poll" ? `📊 ${quoted.question}` : quoted.text;
    const short = text.length > 140 ? `${text.slice(0, 140)}…` : text;
    return el("blockquote", { className: "quote", on: { click: () => target.node.scrollIntoView({ block: "center" }) } },
      el("span", { className: "quote-author", text: quoted.author === this.me ? "You" : displayName(author, quoted.author) }),
      el("span", { className: "quote-text", text: short }));
  }

  renderReactions(item) {
    const row = item.kind === "poll" ? item.article.querySelector(".reactions") : item.reactionsNode;
    if (!row) return;
    const id = item.view.id;
    const chips = item.reactions.map((group) =>
      el("button", {
        className: `chip${group.mine ? " mine" : ""}`, text: `${group.type} ${group.count}`,
        title: group.mine ? "Remove your reaction" : "React the same",
        attrs: { type: "button", "aria-pressed": group.mine ? "true" : "false" },
        on: { click: () => this.toggleReaction(id, group.type, group.mine) },
      }));
    const picker = el("span", { className: "picker" },
      ...quickReactions.map((type) => button(type, () => this.toggleReaction(id, type, this.mine(item, type)), "pick")),
      el("input", {
        className: "reaction-word", attrs: { type: "text", maxlength: "32", placeholder: "word", "aria-label": "React with a word" },
        on: { keydown: (event) => {
          if (event.key !== "Enter") return;
          event.preventDefault();
          const word = event.target.value.trim();
          if (word) this.toggleReaction(id, word, this.mine(item, word));
          event.target.value = "";
        } },
      }));
    row.replaceChildren(...chips, picker);
  }

  mine(item, type) {
    return item.reactions.some((group) => group.type === type && group.mine);
  }

  async toggleReaction(message, type, mine) {
    try {
      await call(mine ? "unreact" : "react", { chat: this.chat.id, message, type });
      await this.fetchReactions(message);
    } catch (error) {
      this.actions.toast(error.message);
    }
  }

  queueReactions(id) {
    this.reactionQueue.push(id);
    while (this.reactionWorkers < 3 && this.reactionQueue.length > 0) {
      this.reactionWorkers += 1;
      this.drainReactions();
    }
  }

  async drainReactions() {
    while (this.reactionQueue.length > 0) {
      const id = this.reactionQueue.shift();
      try {
        await this.fetchReactions(id);
      } catch {
        // a message that takes no reactions: nothing to show
      }
    }
    this.reactionWorkers -= 1;
  }

  async fetchReactions(message) {
    const listing = await call("reactions", { chat: this.chat.id, message, limit: 1 });
    this.applyReactions(message, listing.groups);
  }

  /** Pages back: the 50 shown messages before the oldest one here (polls with their results). */
  async loadOlder() {
    if (this.reachedStart || this.loadingOlder) return;
    this.loadingOlder = true;
    const before = this.oldestId;
    const heightBefore = this.container.scrollHeight;
    try {
      const values = { chat: this.chat.id, limit: pageSize, shown: true };
      if (before) values.before = before;
      const page = await call("messages", values);
      if (page.length < pageSize) this.reachedStart = true;
      for (const view of page) {
        if (view.kind === "poll") {
          this.upsertPoll(await call("pollResults", { chat: this.chat.id, poll: view.id }));
        } else {
          this.upsertMessage(view);
        }
      }
      // Keep what the user was looking at where it was.
      this.container.scrollTop += this.container.scrollHeight - heightBefore;
    } catch (error) {
      this.actions.toast(error.message);
    } finally {
      this.loadingOlder = false;
    }
  }

  /** Re-reads the latest page for delivery states and reads, which the watch does not stream. */
  async refreshStates() {
    const own = this.order.map((id) => this.items.get(id)).filter((item) => item.kind === "message" && item.view.author === this.me);
    if (own.length === 0) return;
    const page = await call("messages", { chat: this.chat.id, limit: pageSize, shown: true });
    for (const view of page) {
      const item = this.items.get(view.id);
      if (!item || item.kind !== "message") continue;
      const before = item.view;
      if (before.state !== view.state || before.deliveredTo !== view.deliveredTo || readCount(before) !== readCount(view)) {
        item.view = view;
        this.renderMessage(item);
      }
    }
  }
}

