// The page: wires the chat list, the open chat's timeline, the member pane and the dialogs to the
// node's API and its WebSocket. Everything a peer wrote is put in as text (see js/dom.js).

import { call, onUnauthorized, WatchSocket } from "./js/api.js";
import { newChatForm, renderChatList } from "./js/chats.js";
import { contactsView } from "./js/contacts.js";
import { button, displayName, el } from "./js/dom.js";
import { forkBanner } from "./js/forks.js";
import { renderMembers } from "./js/members.js";
import { Timeline } from "./js/messages.js";
import { newPollForm, tickCountdowns } from "./js/polls.js";

const $ = (id) => document.getElementById(id);
const state = { me: null, chats: [], contacts: [], current: null, timeline: null, reply: null, typingSentAt: 0, socket: null };

// MARK: small pieces of UI

let toastTimer = null;
function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

function openDialog(...content) {
  const dialog = $("dialog");
  dialog.replaceChildren(...content);
  if (!dialog.open) dialog.showModal();
}

function closeDialog() {
  $("dialog").close();
}

function showLogin() {
  $("app").hidden = true;
  $("login").hidden = false;
  state.socket?.close();
}

onUnauthorized(showLogin);

// MARK: chats

async function refreshChats() {
  try {
    state.chats = await call("chatList");
  } catch (error) {
    if (error.status !== 401) toast(error.message);
    return;
  }
  const current = state.current && state.chats.find((chat) => chat.id === state.current.id);
  if (current) {
    state.current = current;
    if (state.timeline) state.timeline.chat = current;
    renderChatHeader(current);
  }
  renderChatList($("chat-list"), state.chats, { current: state.current?.id, me: state.me, onOpen: openChat });
  const mine = state.chats.flatMap((chat) => chat.members).find((member) => member.id === state.me);
  $("me").textContent = `You: ${displayName(mine?.name, state.me)} · ${state.me.slice(0, 8)}`;
}

let chatsRefresh = null;
function refreshChatsSoon() {
  clearTimeout(chatsRefresh);
  chatsRefresh = setTimeout(refreshChats, 300);
}

async function refreshContacts() {
  try {
    state.contacts = await call("contactsList");
  } catch {
    state.contacts = [];
  }
}

async function refreshInvites() {
  try {
    const invites = await call("invites");
    const badge = $("invites-badge");
    badge.hidden = invites.length === 0;
    badge.textContent = String(invites.length);
  } catch {
    // shown again on the next refresh
  }
}

function renderChatHeader(chat) {
  $("chat-title").textContent = chat.name;
  const others = chat.members.filter((member) => member.id !== state.me).map((member) => displayName(member.name, member.id));
  $("chat-subtitle").textContent = chat.kind === "direct" ? "Direct chat" : `${chat.members.length} members: ${others.join(", ") || "just you"}`;
  // Members that signed two histories: named above the messages for as long as the chat is open.
  const banner = forkBanner(chat);
  $("fork-banner").hidden = !banner;
  $("fork-banner").replaceChildren(...(banner ?? []));
}

function openChat(chat) {
  if (state.current) {
    state.socket.unwatch(state.current.id);
    stopTyping();
  }
  state.current = chat;
  setReply(null);
  $("typing").textContent = "";
  $("no-chat").hidden = true;
  $("chat").hidden = false;
  $("app").classList.add("chat-open");
  renderChatHeader(chat);
  state.timeline = new Timeline({
    container: $("messages"), chat, me: state.me,
    actions: { reply: setReply, note: openNote, receipts: openReceipts, toast },
  });
  // The watch streams the latest messages (and every one after); what it streams counts as read.
  state.socket.watch(chat.id);
  renderChatList($("chat-list"), state.chats, { current: chat.id, me: state.me, onOpen: openChat });
  if (!$("members-pane").hidden) showMembers();
  // A short backlog may not fill the screen: page back until it scrolls or the chat's start. The
  // timeline is taken now: if another chat is open by the time the timer fires, it does nothing.
  const timeline = state.timeline;
  setTimeout(() => fillScreen(timeline), 600);
  $("composer-text").focus();
}

async function fillScreen(timeline) {
  for (let page = 0; page < 5 && timeline === state.timeline; page += 1) {
    const box = timeline.container;
    if (timeline.reachedStart || box.scrollHeight > box.clientHeight + 80) break;
    await timeline.loadOlder();
  }
  if (timeline === state.timeline) timeline.scrollToBottom();
}

function closeChat() {
  if (state.current) state.socket.unwatch(state.current.id);
  stopTyping();
  state.current = null;
  state.timeline = null;
  $("chat").hidden = true;
  $("no-chat").hidden = false;
  $("app").classList.remove("chat-open");
  $("members-pane").hidden = true;
  refreshChats();
}

// MARK: the live stream

function onEvent(chat, event) {
  if (!state.timeline || chat !== state.current?.id) return;
  // A new message or poll changes the chat list (last activity, preview); a vote does not.
  const listChanges = Boolean(event.message) || Boolean(event.poll && !state.timeline.items.has(event.poll.id));
  if (event.message) state.timeline.upsertMessage(event.message);
  if (event.poll) state.timeline.upsertPoll(event.poll);
  if (event.reactions) state.timeline.applyReactions(event.reactions.message, event.reactions.groups);
  if (event.typing) {
    const names = event.typing;
    $("typing").textContent = names.length === 0 ? "" : `${names.join(", ")} ${names.length === 1 ? "is" : "are"} typing…`;
  }
  if (listChanges) refreshChatsSoon();
}

function onSocketError(chat, error) {
  toast(chat ? `${error.message}` : `The live connection refused a command: ${error.message}`);
}

function onSocketStatus(status) {
  const badge = $("connection");
  badge.textContent = status === "online" ? "live" : "reconnecting…";
  badge.classList.toggle("offline", status !== "online");
}

// MARK: composing

function setReply(view) {
  state.reply = view;
  const preview = $("reply-preview");
  preview.hidden = !view;
  if (!view) {
    preview.replaceChildren();
    return;
  }
  const author = view.author === state.me ? "yourself" : displayName(view.authorName, view.author);
  preview.replaceChildren(
    el("span", { className: "reply-label", text: `Replying to ${author}: ` }),
    el("span", { className: "reply-text", text: view.text.length > 100 ? `${view.text.slice(0, 100)}…` : view.text }),
    button("✕", () => setReply(null), "small"));
  $("composer-text").focus();
}

async function sendMessage(event) {
  event.preventDefault();
  const input = $("composer-text");
  const text = input.value.trim();
  if (!text || !state.current) return;
  const values = { chat: state.current.id, text, tag: null, refs: state.reply ? [state.reply.id] : [] };
  try {
    const sent = await call("send", values);
    input.value = "";
    setReply(null);
    stopTyping();
    state.timeline?.upsertMessage(sent);
    state.timeline?.scrollToBottom();
  } catch (error) {
    toast(error.message);
  }
}

/** Tells the members this user is typing, at most every 3 s (the indicator lasts a few seconds). */
function typing() {
  if (!state.current || !$("composer-text").value) return;
  const now = Date.now();
  if (now - state.typingSentAt < 3000) return;
  state.typingSentAt = now;
  call("typing", { chat: state.current.id, active: true }).catch(() => {});
}

function stopTyping() {
  if (!state.current || state.typingSentAt === 0) return;
  state.typingSentAt = 0;
  call("typing", { chat: state.current.id, active: false }).catch(() => {});
}

// MARK: dialogs

async function openNote(view) {
  const area = el("textarea", { attrs: { rows: "4", maxlength: "4096", "aria-label": "Note" } });
  const status = el("p", { className: "hint" });
  openDialog(el("h2", { text: "Note" }),
    el("p", { className: "private", text: "🔒 Private to this device: a note is never sent to anyone." }),
    el("blockquote", { className: "quote", text: view.text.length > 200 ? `${view.text.slice(0, 200)}…` : view.text }),
    area, status,
    el("div", { className: "form-actions" },
      button("Close", closeDialog),
      button("Save", async () => {
        try {
          await call("localSet", { message: view.id, key: "note", value: area.value });
          status.textContent = "Saved on this device.";
        } catch (error) {
          status.textContent = error.message;
        }
      }, "primary")));
  try {
    area.value = (await call("localGet", { message: view.id, key: "note" })).value ?? "";
  } catch (error) {
    status.textContent = error.message;
  }
}

async function openReceipts(view) {
  const list = el("ul", { className: "receipts" });
  openDialog(el("h2", { text: "Receipts" }), list, el("div", { className: "form-actions" }, button("Close", closeDialog)));
  try {
    const receipts = await call("receipts", { chat: state.current.id, message: view.id });
    const when = (millis) => (millis ? new Date(millis).toLocaleString() : "");
    for (const receipt of receipts) {
      const status = receipt.read ? `read ${when(receipt.readAtMillis)}` : receipt.delivered ? `delivered ${when(receipt.deliveredAtMillis)}` : "not delivered yet";
      list.append(el("li", {}, el("strong", { text: displayName(receipt.name, receipt.member) }), ` — ${status}`));
    }
    if (receipts.length === 0) list.append(el("li", { className: "empty", text: "Nobody else is in this chat." }));
  } catch (error) {
    list.append(el("li", { className: "form-error", text: error.message }));
  }
}

async function openNewChat() {
  await refreshContacts();
  openDialog(newChatForm(state.contacts, {
    toast,
    onDone: async (chat) => {
      closeDialog();
      if (!chat) return;
      await refreshChats();
      openChat(state.chats.find((listed) => listed.id === chat.id) ?? chat);
    },
  }));
}

function openNewPoll() {
  if (!state.current) return;
  openDialog(newPollForm(state.current.id, { toast, onDone: () => closeDialog() }));
}

async function openContacts() {
  const view = await contactsView({ toast, onChanged: () => { refreshContacts(); refreshChats(); refreshInvites(); } });
  openDialog(view, el("div", { className: "form-actions" }, button("Close", closeDialog)));
}

async function showMembers() {
  const pane = $("members-pane");
  pane.hidden = false;
  if (!state.current) return;
  await refreshContacts();
  await renderMembers(pane, state.current, {
    me: state.me, contacts: state.contacts, toast,
    onChatChanged: async () => {
      await refreshChats();
      showMembers();
    },
  });
}

// MARK: start

async function start() {
  let status;
  try {
    status = await call("status");
  } catch (error) {
    if (error.status !== 401) toast(error.message);
    return;
  }
  state.me = status.peer;
  state.socket = new WatchSocket({ onEvent, onError: onSocketError, onStatus: onSocketStatus });
  state.socket.connect();
  await Promise.all([refreshChats(), refreshContacts(), refreshInvites()]);

  $("composer").addEventListener("submit", sendMessage);
  $("composer-text").addEventListener("input", typing);
  $("composer-text").addEventListener("blur", stopTyping);
  $("composer-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) sendMessage(event);
  });
  $("new-chat").addEventListener("click", openNewChat);
  $("new-poll").addEventListener("click", openNewPoll);
  $("show-contacts").addEventListener("click", openContacts);
  $("back").addEventListener("click", closeChat);
  $("toggle-members").addEventListener("click", () => {
    if ($("members-pane").hidden) showMembers();
    else $("members-pane").hidden = true;
  });
  $("dialog").addEventListener("click", (event) => {
    if (event.target === $("dialog")) closeDialog(); // a click on the backdrop
  });

  setInterval(refreshChats, 5000);
  setInterval(refreshInvites, 10_000);
  setInterval(tickCountdowns, 1000);
  setInterval(() => {
    state.timeline?.refreshStates().catch(() => {});
    if (state.current && !$("members-pane").hidden) showMembers();
  }, 4000);
}

start();
