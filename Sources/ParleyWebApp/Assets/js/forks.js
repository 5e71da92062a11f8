// Members proven to have signed two histories in a chat (fork proofs, PROTOCOL.md §4.4): from the
// forked sequence on, their messages there count for nothing and are not shown. Names come from
// peers: each goes in as the text of its own <bdi>, so a right-to-left override in one cannot turn
// the sentence around it.

import { displayName, el, joined } from "./dom.js";

/** A member's name, isolated from the text around it. */
export function nameNode(member) {
  return el("bdi", { className: "forked-name", text: displayName(member.name, member.id) });
}

/**
 * The open chat's banner naming its forked members (`ChatView.forked`), as nodes to put in a
 * paragraph; null when nobody forked.
 */
export function forkBanner(chat) {
  const forked = chat?.forked ?? [];
  if (forked.length === 0) return null;
  const names = joined(forked.map(nameNode));
  if (forked.length === 1) {
    return ["⚠ ", ...names, ` signed two histories from their message ${forked[0].fromSequence}: `
      + "their messages from then on count for nothing and are not shown."];
  }
  return ["⚠ ", ...names, " signed two histories: their messages from each one's fork on count for nothing and are not shown."];
}

/** A poll's disputes (`PollResultsView.disputes`): the voters whose ballots count for nothing, or null. */
export function disputedVoters(results) {
  const voters = results.disputes?.voters ?? [];
  if (voters.length === 0) return null;
  return el("p", { className: "disputes" },
    "Not counted: ", ...joined(voters.map(nameNode)),
    voters.length === 1 ? " signed two histories; their vote counts for nothing." : " signed two histories; their votes count for nothing.");
}

/** The line under a member in the member pane when it forked (`MemberPresenceView.forkedFrom`), or null. */
export function memberForkNote(member) {
  if (member.forkedFrom === undefined || member.forkedFrom === null) return null;
  return el("span", { className: "member-forked",
    text: `⚠ signed two histories from their message ${member.forkedFrom}: their messages from then on count for nothing` });
}
