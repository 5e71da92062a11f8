// The chat list (direct chats, then groups, each by last activity, as `chatList` orders them) and
// the "new chat" form. Chat names and previews come from peers: text only.

import { call } from "./api.js";
import { avatar } from "./avatars.js";
import { ago, button, displayName, el, isolated, joined, nameRun, withBidiShown } from "./dom.js";
import { inviteCard } from "./invites.js";

/**
 * The list: invites waiting for an answer first (where a user looks), then direct chats and groups.
 * `invites`: the node's pending invites; `onInviteAnswered()` runs after one is accepted or declined.
 */
export function renderChatList(container, chats, { current, me, onOpen, invites = [], toast, onInviteAnswered }) {
  const sections = [];
  if (invites.length > 0) {
    // The list is redrawn every few seconds: an invite already shown keeps its card, and what was typed in it.
    const shown = new Map([...container.querySelectorAll("[data-invite]")].map((card) => [card.dataset.invite, card]));
    const list = el("ul");
    for (const invite of invites) list.append(el("li", {}, shown.get(invite.id) ?? inviteCard(invite, { toast, onAnswered: onInviteAnswered })));
    sections.push(el("section", { className: "chat-section invites-section" }, el("h2", { text: `Invites (${invites.length})` }), list));
  }
  for (const [kind, title] of [["direct", "Direct"], ["group", "Groups"]]) {
    const list = el("ul");
    for (const chat of chats.filter((chat) => chat.kind === kind)) list.append(el("li", {}, chatItem(chat, current, me, onOpen)));
    if (list.children.length === 0) list.append(el("li", { className: "empty", text: kind === "direct" ? "No direct chats" : "No groups" }));
    sections.push(el("section", { className: "chat-section" }, el("h2", { text: title }), list));
  }
  container.replaceChildren(...sections);
}

/** The line under a chat's name: who wrote the latest message and its start, each a run of its own. */
function preview(chat, me) {
  const last = chat.lastMessage;
  if (!last) {
    if (chat.waitingFor.length === 0) return ["No messages yet"];
    return ["Waiting for ", ...joined(chat.waitingFor.map((member) => nameRun(member.name, member.id)))];
  }
  const text = last.kind === "poll" ? "📊 poll" : last.text;
  return [last.author === me ? "You" : nameRun(last.authorName, last.author), ": ",
    isolated(text.length > 80 ? `${text.slice(0, 80)}…` : text)];
}

/** A direct chat shows the other person's face; a group, its own (from the chat's id and title). */
function chatFace(chat, me) {
  const other = chat.kind === "direct" ? chat.members.find((member) => member.id !== me) : null;
  return other ? avatar(other.id, displayName(other.name, other.id)) : avatar(chat.id, chat.name);
}

/** The total the tab's title counts: unread messages in chats that are not muted. */
export function unreadTotal(chats) {
  return chats.reduce((total, chat) => total + (chat.muted ? 0 : chat.unread ?? 0), 0);
}

/** "(3) Parley" while anything unmuted is unread, else "Parley". */
export function tabTitle(chats) {
  const total = unreadTotal(chats);
  return total > 0 ? `(${total.toLocaleString()}) Parley` : "Parley";
}

function chatItem(chat, current, me, onOpen) {
  const item = el("button", {
    className: `chat-item${chat.id === current ? " current" : ""}`,
    attrs: { type: "button", "data-chat": chat.id, "aria-current": chat.id === current ? "true" : false },
    on: { click: () => onOpen(chat) },
  },
  chatFace(chat, me),
  el("span", { className: "chat-name" }, isolated(chat.name), forkMark(chat), mutedMark(chat)),
  el("span", { className: "chat-when", text: ago(chat.lastActivityMillis) }),
  el("span", { className: "chat-preview" }, ...preview(chat, me)));
  if (chat.unread > 0) {
    // Mentions of this user are counted apart, in the same badge: "@1 5" is five unread, one mentioning you.
    const mentions = chat.unreadMentions > 0 ? `@${chat.unreadMentions} ` : "";
    item.append(el("span", {
      className: `badge${chat.muted ? " muted" : ""}${mentions ? " mentions" : ""}`, text: `${mentions}${chat.unread}`,
      title: `${chat.unread} unread${mentions ? `, ${chat.unreadMentions} mentioning you` : ""}`,
    }, el("span", { className: "visually-hidden", text: mentions ? " unread, @ mentioning you" : " unread" })));
  }
  return item;
}

/** After a muted chat's name: a bell struck through, and the word for screen readers. */
function mutedMark(chat) {
  if (!chat.muted) return null;
  return el("span", { className: "chat-muted", title: "Muted: no notifications, not counted in the tab's title" },
    el("span", { text: "🔕", attrs: { "aria-hidden": "true" } }), el("span", { className: "visually-hidden", text: "muted" }));
}

/** After a chat's name when members signed two histories there (`ChatView.forked`): "⚠", named in its title. */
function forkMark(chat) {
  const forked = chat.forked ?? [];
  if (forked.length === 0) return null;
  const names = withBidiShown(forked.map((member) => displayName(member.name, member.id)).join(", "));
  return el("span", { className: "chat-forked", text: " ⚠", title: `Signed two histories: ${names}` });
}

/** The "new chat" form: a group (title, members) or a direct chat (one contact). */
export function newChatForm(contacts, { onDone, toast }) {
  const kindGroup = el("input", { attrs: { type: "radio", name: "kind", value: "group", checked: true } });
  const kindDirect = el("input", { attrs: { type: "radio", name: "kind", value: "direct" } });
  const title = el("input", { attrs: { type: "text", maxlength: "256", name: "title", placeholder: "Lunch" } });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  const memberList = el("div", { className: "member-choices" });
  const renderMembers = () => {
    const type = kindDirect.checked ? "radio" : "checkbox";
    memberList.replaceChildren(...contacts.map((contact) =>
      el("label", { className: "check" }, el("input", { attrs: { type, name: "member", value: contact.name } }), " ", isolated(contact.name))));
    if (contacts.length === 0) memberList.append(el("p", { className: "hint", text: "Add contacts first (Contacts)." }));
  };
  kindGroup.addEventListener("change", renderMembers);
  kindDirect.addEventListener("change", renderMembers);
  renderMembers();

  const form = el("form", { className: "chat-form" },
    el("h2", { text: "New chat" }),
    el("fieldset", {}, el("legend", { text: "Kind" }),
      el("label", { className: "check" }, kindGroup, " Group"), el("label", { className: "check" }, kindDirect, " Direct (one person)")),
    el("label", { className: "field" }, el("span", { text: "Title (optional for a direct chat)" }), title),
    el("fieldset", {}, el("legend", { text: "Members" }), memberList),
    error,
    el("div", { className: "form-actions" },
      button("Cancel", () => onDone(null)),
      el("button", { text: "Create", className: "primary", attrs: { type: "submit" } })));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const members = [...memberList.querySelectorAll("input:checked")].map((input) => input.value);
    const kind = kindDirect.checked ? "direct" : "group";
    if (kind === "group" && !title.value.trim()) {
      error.textContent = "A group needs a title.";
      return;
    }
    if (kind === "direct" && members.length !== 1) {
      error.textContent = "A direct chat is with exactly one contact.";
      return;
    }
    try {
      onDone(await call("chatCreate", { title: title.value.trim(), members, kind }));
    } catch (failure) {
      error.textContent = failure.message;
      toast?.(failure.message);
    }
  });
  return form;
}
