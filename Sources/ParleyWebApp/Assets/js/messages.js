// One chat's timeline: messages and poll cards in history order (history clock, author, sequence,
// the order every node lists them in), day separators, reply quotes, reactions and delivery ticks.
// Items are built once and updated in place, so a live update never disturbs what the user types.
// What was on screen is what was read: the timeline opens at the first unread message and moves the
// chat's read marker (and so the read receipts) up to the latest message the user saw, like Signal.

import { call } from "./api.js";
import { avatar } from "./avatars.js";
import { button, clockTime, dayLabel, el, isolated, nameRun, utf8Bytes, withBidiShown } from "./dom.js";
import { pollCard, refreshPollCard } from "./polls.js";
import { amendmentButtons, amendmentMarks, editInPlace, mentionedBody, openThread, tombstone } from "./amendments.js";
import { linkCards } from "./previews.js";
import { fileBody } from "./files.js";

export const quickReactions = ["👍", "❤️", "😂", "😮", "🎉"];
const pageSize = 50;
/** Pages fetched while reaching back to the first unread message, and how far back that goes. */
const unreadPageSize = 200;
const maxUnreadReach = 1000;
/** A reaction type's limit in UTF-8 bytes (ReactionType.maxByteCount, as the CLI and the API take it). */
export const maxReactionBytes = 64;
/** How much of a message must be on screen to count as seen: half of it, or half the screen for a tall one. */
const seenShare = 0.5;

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
   * toast(text), read(upTo) (the read marker moved over seen messages), poll context (see polls.js).
   */
  constructor({ container, chat, me, actions }) {
    this.container = container;
    this.chat = chat;
    this.me = me;
    this.actions = actions;
    this.items = new Map(); // id → { order, timestamp, kind, view, local, unread, node, article, reactions }
    this.order = []; // ids in history order
    this.waitingQuotes = new Map(); // referenced id → ids of the replies quoting it
    this.reachedStart = false;
    this.loadingOlder = null; // the page on its way, while one is
    this.closed = false;
    this.reactionQueue = [];
    this.reactionWorkers = 0;
    this.stickAfterFrame = null; // whether to scroll to the bottom once this frame's inserts are in
    // Reading: the marker (a local number) as the chat list gave it, and the unread messages on screen now.
    this.marker = chat.readMarker ?? 0;
    this.unreadAtOpen = chat.unread ?? 0;
    this.onScreen = new Set();
    // Unread messages partly on screen but not enough to count: a message over twice the screen's
    // height never crosses the observer's half threshold, so scrolling measures these itself.
    this.partlyOnScreen = new Set();
    this.reading = false; // set once the timeline is placed: nothing scrolled past on the way counts
    this.positionAtUnread = this.unreadAtOpen > 0;
    this.userScrolled = false;
    this.divider = el("div", { className: "unread-divider", text: "Unread messages", attrs: { role: "separator" } });
    this.dividerAbove = null; // the id of the message the divider sits above, once placed
    this.unreadBar = null;
    // Back to the divider from wherever the user scrolled: shown while the divider is out of view.
    this.jump = el("button", {
      className: "jump-unread", text: "Jump to first unread",
      attrs: { type: "button", hidden: true }, on: { click: () => this.jumpToFirstUnread() },
    });
    this.dividerObserver = new IntersectionObserver((entries) => {
      this.jump.hidden = entries[entries.length - 1].isIntersecting || !this.divider.isConnected;
    }, { root: container });
    this.observer = new IntersectionObserver((entries) => this.onIntersections(entries), { root: container, threshold: [0, seenShare, 1] });
    this.onVisibility = () => this.noteSeen();
    document.addEventListener("visibilitychange", this.onVisibility);
    // A sticky row of no height at the top of the timeline: the button floats over the messages.
    container.replaceChildren(el("div", { className: "jump-row" }, this.jump));
    container.onscroll = () => {
      if (container.scrollTop < 80 && !this.loadingOlder) this.loadOlder();
      if (this.partlyOnScreen.size > 0) this.measurePartlyOnScreen();
    };
    // Only the user's own scrolling ends the placement at the first unread message.
    const userScrolls = () => { this.userScrolled = true; };
    container.onwheel = userScrolls;
    container.ontouchmove = userScrolls;
    container.onkeydown = userScrolls;
  }

  /** Stops observing and loading: another chat is open now, in the same container. */
  close() {
    this.closed = true;
    this.observer.disconnect();
    this.dividerObserver.disconnect();
    this.unreadBar?.remove();
    document.removeEventListener("visibilitychange", this.onVisibility);
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
      // A deleted poll comes back as a message: its card gives way to the tombstone.
      if (view.kind === "deleted") existing.kind = "message";
      if (existing.kind === "poll") return;
      existing.view = view;
      this.renderMessage(existing);
      return;
    }
    const item = { order: view, timestamp: view.timestampMillis, kind: "message", view, local: view.localNumber, reactions: [] };
    this.insert(item, () => this.renderMessage(item));
    if (view.kind !== "membership" && !view.sealed) this.queueReactions(view.id);
  }

  /** A poll's current results: its card added, or redrawn with the new tally. */
  upsertPoll(results) {
    const existing = this.items.get(results.id);
    if (existing) {
      if (existing.kind !== "poll") return; // deleted: its tombstone stays
      existing.view = results;
      refreshPollCard(existing.article, results, this.pollContext());
      this.renderReactions(existing);
      return;
    }
    const item = {
      order: { historyClock: results.historyClock, author: results.author, sequence: results.sequence },
      timestamp: results.createdAtMillis, kind: "poll", view: results, local: results.localNumber, reactions: [],
    };
    this.insert(item, () => {
      item.article = pollCard(results, this.pollContext());
      // A poll is a message like any other: it can be deleted (by its author or the chat's creator),
      // pinned and replied to in a thread.
      const view = { ...results, tag: "Poll", kind: "poll", sealed: false };
      item.article.append(el("div", { className: "actions" }, ...amendmentButtons(view, {
        chat: this.chat, me: this.me, toast: this.actions.toast, edit: () => {},
        thread: () => openThread(view, { chat: this.chat, me: this.me, toast: this.actions.toast }),
      })));
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
    const nextNode = next ? this.items.get(next).node : null;
    // An older message goes above the divider, which stays right above the message it was placed on.
    this.container.insertBefore(item.node, next === this.dividerAbove && this.divider.isConnected ? this.divider : nextNode);
    this.order.splice(index, 0, id);
    this.items.set(id, item);
    item.unread = item.local > this.marker && item.view.author !== this.me;
    if (item.unread) this.observer.observe(item.node);
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
      if (this.positionAtUnread && !this.userScrolled && this.firstUnread()) this.scrollToFirstUnread();
      else if (this.stickAfterFrame) this.scrollToBottom();
      this.stickAfterFrame = null;
    });
  }

  // MARK: reading

  /** The first unread message in history order, or null. */
  firstUnread() {
    const id = this.order.find((candidate) => this.items.get(candidate).unread);
    return id ? this.items.get(id) : null;
  }

  /** "Unread messages" above the first unread message, at the top of the view. */
  scrollToFirstUnread() {
    const first = this.firstUnread();
    if (!first) return;
    first.node.before(this.divider);
    this.dividerAbove = first.view.id;
    this.dividerObserver.observe(this.divider);
    this.scrollToDivider();
  }

  scrollToDivider() {
    const box = this.container;
    box.scrollTop += this.divider.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
  }

  /** The "Jump to first unread" button: back to where the unread messages started at the opening. */
  jumpToFirstUnread() {
    if (!this.divider.isConnected) return;
    this.userScrolled = true;
    this.scrollToDivider();
  }

  /**
   * Whether every unread message is loaded, or reached: the chat's start, a message at or before the
   * marker, or as many unread loaded as the chat had. Until then seen messages move nothing, since
   * the marker would pass over unread ones nobody was shown.
   */
  reachedUnread() {
    if (this.reachedStart) return true;
    let unread = 0;
    for (const item of this.items.values()) {
      if (item.local > 0 && item.local <= this.marker) return true;
      if (item.unread) unread += 1;
    }
    return unread >= this.unreadAtOpen;
  }

  /**
   * Places the timeline once the watch's backlog is in: pages back to the first unread message (at
   * most `maxUnreadReach` messages), fills the screen, shows the first unread message at the top (or
   * the latest at the bottom) and starts counting what is seen. `fresh`: the chat's view asked for
   * at the opening (the list's may be seconds old), or null.
   */
  async settle(fresh) {
    if (fresh) {
      this.marker = Math.max(this.marker, fresh.readMarker ?? 0);
      this.unreadAtOpen = fresh.unread ?? this.unreadAtOpen;
      this.positionAtUnread = this.unreadAtOpen > 0;
      for (const item of this.items.values()) {
        const unread = item.local > this.marker && item.view.author !== this.me;
        if (item.unread && !unread) this.observer.unobserve(item.node);
        item.unread = unread;
      }
    }
    for (let loaded = 0; !this.reachedUnread() && loaded < maxUnreadReach; loaded += unreadPageSize) {
      if (!(await this.loadOlder(unreadPageSize))) break;
    }
    const box = this.container;
    for (let page = 0; page < 5 && !this.reachedStart && box.scrollHeight <= box.clientHeight + 80; page += 1) {
      if (!(await this.loadOlder())) break;
    }
    if (this.closed) return;
    if (!this.reachedUnread()) this.showUnreadBar();
    if (this.positionAtUnread && this.reachedUnread() && this.firstUnread() && !this.userScrolled) {
      this.scrollToFirstUnread();
    } else if (!this.userScrolled) {
      this.scrollToBottom();
    }
    // Placed: from now on the view moves with the user (and follows new messages at the bottom).
    this.positionAtUnread = false;
    // The observer reports the placed view in its next round; what was on screen before does not count.
    this.onScreen.clear();
    this.partlyOnScreen.clear();
    for (const id of this.order) {
      const item = this.items.get(id);
      if (item.unread) {
        this.observer.unobserve(item.node);
        this.observer.observe(item.node);
      }
    }
    this.reading = true;
  }

  /**
   * Too many unread to reach back to: the latest are shown, and seeing them cannot move the marker
   * over the rest. The user may mark the chat read as a whole instead.
   */
  showUnreadBar() {
    if (this.unreadBar) return;
    const count = this.unreadAtOpen;
    this.unreadBar = el("div", { className: "unread-bar", attrs: { role: "status" } },
      `${count.toLocaleString()} unread messages, the oldest further up than this page loads. `,
      button("Mark all read", () => this.markAllRead(), "small"));
    this.container.before(this.unreadBar);
  }

  markAllRead() {
    const latest = Math.max(this.marker, ...[...this.items.values()].map((item) => item.local ?? 0));
    this.moveMarker(latest);
    this.unreadBar?.remove();
    this.unreadBar = null;
  }

  onIntersections(entries) {
    for (const entry of entries) {
      const id = entry.target.dataset.id;
      const screen = entry.rootBounds?.height ?? 0;
      const seen = entry.isIntersecting && (entry.intersectionRatio >= seenShare || entry.intersectionRect.height >= screen * seenShare);
      if (seen) this.onScreen.add(id);
      else this.onScreen.delete(id);
      if (entry.isIntersecting && !seen) this.partlyOnScreen.add(id);
      else this.partlyOnScreen.delete(id);
    }
    this.noteSeen();
  }

  /** On a scroll: a tall message partly on screen counts as seen once it covers half the screen. */
  measurePartlyOnScreen() {
    const screen = this.container.getBoundingClientRect();
    for (const id of this.partlyOnScreen) {
      const box = this.items.get(id)?.node.getBoundingClientRect();
      if (!box) continue;
      if (Math.min(box.bottom, screen.bottom) - Math.max(box.top, screen.top) >= screen.height * seenShare) {
        this.partlyOnScreen.delete(id);
        this.onScreen.add(id);
      }
    }
    this.noteSeen();
  }

  /**
   * What is on screen while the page is visible counts as seen, and the marker moves up to the
   * latest seen (by local number): reading down from the first unread message marks as it goes.
   */
  noteSeen() {
    if (!this.reading || document.visibilityState !== "visible" || !this.reachedUnread()) return;
    let upTo = this.marker;
    for (const id of this.onScreen) upTo = Math.max(upTo, this.items.get(id)?.local ?? 0);
    if (upTo > this.marker) this.moveMarker(upTo);
  }

  moveMarker(upTo) {
    this.marker = upTo;
    for (const item of this.items.values()) {
      if (item.unread && item.local <= upTo) {
        item.unread = false;
        this.observer.unobserve(item.node);
        this.partlyOnScreen.delete(item.view.id);
      }
    }
    this.actions.read(upTo);
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
      // The node's sentence naming members ("members are now …"): one string, so an override in a
      // name is written out rather than left to turn the rest of the line around.
      const line = el("div", { className: "system", text: withBidiShown(view.text), title: clockTime(view.timestampMillis) });
      item.article?.replaceWith(line);
      item.article = line;
      return line;
    }
    const article = el("article", { className: `message${own ? " own" : ""}`, attrs: { "data-id": view.id } });
    const meta = el("div", { className: "meta" },
      own ? null : avatar(view.author, view.authorName, "small"),
      el("span", { className: "author" }, own ? "You" : nameRun(view.authorName, view.author)),
      el("time", { text: clockTime(view.timestampMillis), attrs: { datetime: new Date(view.timestampMillis).toISOString() } }));
    if (own) meta.append(this.ticks(view));
    meta.append(...amendmentMarks(view, this.chat, this.actions.toast));
    article.append(meta);
    if (view.mentionsMe) article.classList.add("mentions-me");
    if (view.kind === "deleted") {
      article.classList.add("deleted");
      article.append(tombstone(view));
      item.article?.replaceWith(article);
      item.article = article;
      item.reactionsNode = null;
      return article;
    }
    const quote = this.quote(view);
    if (quote) article.append(quote);
    if (view.sealed) {
      article.append(el("p", { className: "body sealed", text: "🔒 Sealed: this device holds no key for it." }));
    } else if (view.tag === "File" && view.file) {
      article.append(fileBody(view, { toast: this.actions.toast }));
    } else if (view.kind === "custom") {
      article.append(el("pre", { className: "body custom", text: view.text, attrs: { dir: "auto" } }));
    } else {
      article.append(el("p", { className: "body", attrs: { dir: "auto" } }, mentionedBody(view, this.me)));
      const cards = linkCards(view);
      if (cards) article.append(cards);
    }
    item.reactionsNode = el("div", { className: "reactions" });
    article.append(item.reactionsNode);
    const actions = el("div", { className: "actions" },
      button("Reply", () => this.actions.reply(view)),
      button("Note", () => this.actions.note(view)));
    if (own) actions.append(button("Receipts", () => this.actions.receipts(view)));
    actions.append(...amendmentButtons(view, {
      chat: this.chat, me: this.me, toast: this.actions.toast,
      edit: () => editInPlace(article, view, this.chat, this.actions.toast),
      thread: () => openThread(view, { chat: this.chat, me: this.me, toast: this.actions.toast }),
    }));
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
    const text = quoted.kind === "deleted" ? "Message deleted" : target.kind === "poll" ? `📊 ${quoted.question}` : quoted.text;
    const short = text.length > 140 ? `${text.slice(0, 140)}…` : text;
    return el("blockquote", { className: "quote", on: { click: () => target.node.scrollIntoView({ block: "center" }) } },
      el("span", { className: "quote-author" }, quoted.author === this.me ? "You" : nameRun(author, quoted.author)),
      isolated(short, "quote-text"));
  }

  renderReactions(item) {
    const row = item.kind === "poll" ? item.article.querySelector(".reactions") : item.reactionsNode;
    if (!row) return;
    const id = item.view.id;
    const chips = item.reactions.map((group) =>
      el("button", {
        className: `chip${group.mine ? " mine" : ""}`,
        title: group.mine ? "Remove your reaction" : "React the same",
        attrs: { type: "button", "aria-pressed": group.mine ? "true" : "false" },
        on: { click: () => this.toggleReaction(id, group.type, group.mine) },
      }, isolated(group.type), ` ${group.count}`));
    const picker = el("span", { className: "picker" },
      ...quickReactions.map((type) => button(type, () => this.toggleReaction(id, type, this.mine(item, type)), "pick")),
      el("input", {
        className: "reaction-word", attrs: { type: "text", placeholder: "word", "aria-label": `React with a word (1–${maxReactionBytes} bytes)` },
        on: { keydown: (event) => {
          if (event.key !== "Enter") return;
          event.preventDefault();
          const word = event.target.value.trim();
          if (!word) return;
          // The node's rule, counted here so the user learns it before sending: UTF-8 bytes, not characters.
          const bytes = utf8Bytes(word);
          if (bytes > maxReactionBytes) {
            event.target.setAttribute("aria-invalid", "true");
            this.actions.toast(`A reaction is at most ${maxReactionBytes} bytes of UTF-8; this one is ${bytes}. Shorten it.`);
            return;
          }
          event.target.removeAttribute("aria-invalid");
          this.toggleReaction(id, word, this.mine(item, word));
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

  /**
   * Pages back: the `limit` shown messages before the oldest one here (polls with their results),
   * after any page already coming. Whether a page came (false at the start, or on an error).
   */
  async loadOlder(limit = pageSize) {
    while (this.loadingOlder) await this.loadingOlder;
    if (this.reachedStart || this.closed) return false;
    this.loadingOlder = this.fetchOlder(limit);
    try {
      return await this.loadingOlder;
    } finally {
      this.loadingOlder = null;
    }
  }

  async fetchOlder(limit) {
    const before = this.oldestId;
    const heightBefore = this.container.scrollHeight;
    try {
      const values = { chat: this.chat.id, limit, shown: true };
      if (before) values.before = before;
      const page = await call("messages", values);
      if (this.closed) return false;
      if (page.length < limit) this.reachedStart = true;
      for (const view of page) {
        if (view.kind === "poll") {
          const results = await call("pollResults", { chat: this.chat.id, poll: view.id });
          if (this.closed) return false;
          this.upsertPoll(results);
        } else {
          this.upsertMessage(view);
        }
      }
      // Keep what the user was looking at where it was.
      this.container.scrollTop += this.container.scrollHeight - heightBefore;
      return true;
    } catch (error) {
      this.actions.toast(error.message);
      return false;
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

