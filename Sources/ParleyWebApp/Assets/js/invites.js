// Invites waiting for this user's answer (from people outside their contacts), shown where a user
// looks: at the top of the chat list, and in the contacts dialog. Names come from peers: each is a
// run of its own.

import { call } from "./api.js";
import { button, el, isolated, joined, nameRun } from "./dom.js";

/**
 * "dave (not in your contacts) invites you to the group “Book club” with carol", with a field to
 * name the inviter, Accept and Decline. `onAnswered()` runs after either succeeds.
 */
export function inviteCard(invite, { toast, onAnswered }) {
  const known = Boolean(invite.creator.name);
  const others = invite.members.filter((member) => member.id !== invite.creator.id);
  const sentence = el("p", { className: "invite-text" },
    el("strong", {}, nameRun(invite.creator.name, invite.creator.id)),
    known ? "" : el("span", { className: "hint", text: " (not in your contacts)" }),
    invite.kind === "direct" ? " invites you to a direct chat" : " invites you to the group ",
    invite.kind === "direct" && !invite.title ? "" : el("strong", {}, isolated(invite.title || "(untitled)", "invite-title")),
    ...(others.length > 0 ? [" with ", ...joined(others.map((member) => nameRun(member.name, member.id)))] : []));
  // Accepting with a name makes the inviter a contact: later chats from them are joined by themselves.
  const name = el("input", { attrs: { type: "text", maxlength: "64", value: invite.creator.name ?? "", placeholder: "their name (optional)",
    "aria-label": "Name for the inviter", hidden: known } });
  const answer = async (request, values) => {
    try {
      await call(request, values);
      await onAnswered();
    } catch (error) {
      toast(error.message);
    }
  };
  return el("div", { className: "invite", attrs: { "data-invite": invite.id } }, sentence,
    el("div", { className: "input-row" }, name,
      button("Accept", () => answer("inviteAccept", name.value.trim() ? { invite: invite.id, name: name.value.trim() } : { invite: invite.id }), "primary"),
      button("Decline", () => answer("inviteDecline", { invite: invite.id }), "danger")));
}
