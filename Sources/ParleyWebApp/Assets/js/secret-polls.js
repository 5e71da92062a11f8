// Secret polls (secret ballots): the card shows who may vote and where this user's ballot is, and
// counts only once the creator's close is here; it never shows who voted, or how. A ballot is cast
// once, with pollVote as on every poll (the node sees the poll is secret): it is ring-signed for
// the electorate and relayed through two members.
// Names, questions and options come from peers: text nodes only (js/dom.js).

import { call } from "./api.js";
import { el, isolated, nameRun } from "./dom.js";

/** What pollVote answered on a secret poll, per poll, for this page's life: how the ballot travels (its line's parts, made afresh for each redraw). */
const receipts = new Map();

/** Where this user's ballot is (`SecretPollView.ownBallot`), as the CLI says it. */
const ownBallotText = {
  relayed: "sealed and relayed; published with every ballot after the closing time",
  published: "published, waiting for the creator's close",
  counted: "counted",
  notCounted: "not counted (not published before the close: lost on its way, or alone after the creator's batch)",
};

/**
 * Fills a secret poll's card after its header, question and status line. `parts`: the shared
 * pieces of polls.js (bar, and barFor: the rule's bar for a choice).
 */
export function fillSecretCard(card, results, context, parts) {
  const secret = results.secret;
  card.classList.add("secret");
  card.append(electorateLine(secret, context.me));
  if (secret.electorateProblem) {
    card.append(el("p", { className: "form-error electorate-problem", text: `Refused on every node, counts nothing and takes no ballot: ${secret.electorateProblem}` }));
  } else {
    // The anonymity set, before casting: the creator reads every ballot, so a vote hides among the others.
    card.append(el("p", { className: "hidden-among", text: `Your vote is hidden among ${secret.hiddenAmong} members (the electors besides the poll's creator).` }));
  }
  if (secret.resultsFinal) {
    card.append(results.kind === "yesNo" ? finalYesNoRows(results, parts) : finalOptionRows(results, parts));
    card.append(el("p", { className: "secret-counts", text: countsLine(secret) }));
    if (secret.suppressed > 0) card.append(suppressionLine(secret));
  } else {
    const voter = secret.electorate.some((elector) => elector.id === context.me);
    const canVote = voter && !secret.electorateProblem && results.phase === "open" && !secret.ownBallot && results.ownVotes.length === 0;
    card.append(results.kind === "yesNo" ? openYesNoRows(results, context, canVote) : openOptionRows(results, context, canVote));
    card.append(el("p", { className: "secret-pending", text: "Results at the close: no one sees who cast which." }));
    if (!voter) card.append(el("p", { className: "hint", text: "You are not in this poll's electorate: it was fixed when the poll was posted." }));
    else if (canVote) card.append(el("p", { className: "hint", text: "Your ballot is final: it cannot be changed or withdrawn." }));
  }
  if (secret.ownBallot || results.ownVotes.length > 0) card.append(ownBallotLine(results));
  const receipt = receipts.get(results.id);
  if (receipt && !secret.resultsFinal) card.append(el("p", { className: "ballot-receipt" }, receipt()));
}

/** "Electorate (3): you, bob, carol". */
function electorateLine(secret, me) {
  const names = secret.electorate.map((elector) => (elector.id === me ? "you" : nameRun(elector.name, elector.id)));
  const line = el("p", { className: "electorate" }, `Electorate (${names.length}): `);
  names.forEach((name, index) => line.append(...(index > 0 ? [", "] : []), name));
  return line;
}

/** "3 of 3 electors counted; 0 conflicting, 0 rejected" (and the late ones, if any). */
function countsLine(secret) {
  const late = secret.late ? `, ${secret.late} after the close` : "";
  const byOthers = secret.byOthers ? `, ${secret.byOthers} published by others than the creator (not counted)` : "";
  return `${secret.counted ?? 0} of ${secret.electorate.length} electors counted; ${secret.conflicting ?? 0} conflicting, ${secret.rejected ?? 0} rejected${late}${byOthers}`;
}

/** The dispute every node shows alike: ballots a publisher committed to that the creator did not publish. */
function suppressionLine(secret) {
  const count = secret.suppressed;
  const line = el("p", { className: "form-error suppressed" }, `Disputed: ${count} ballot${count === 1 ? "" : "s"} committed to at the closing time by `);
  (secret.suppressionRevealedBy ?? []).forEach((publisher, index) => line.append(...(index > 0 ? [", "] : []), nameRun(publisher.name, publisher.id)));
  line.append(` not published by the poll's creator (left out, or never handed over). The counts leave ${count === 1 ? "it" : "them"} out.`);
  return line;
}

/** What a choice id reads as: Yes/No, or the option's text. */
function choiceLabel(results, id) {
  if (results.kind === "yesNo") return id === "up" ? "Yes" : id === "down" ? "No" : id;
  return results.options?.find((option) => option.id === id)?.text ?? id;
}

/**
 * "Your ballot (Yes): counted". The choice is known only to this node (`ownVotes`), and only until
 * the close unless the voter asked to keep it: then "You voted (…): counted". Each option's text is a run of its own.
 */
function ownBallotLine(results) {
  const choices = results.ownVotes.map((id) => isolated(choiceLabel(results, id)));
  const state = results.secret.ownBallot ? ownBallotText[results.secret.ownBallot] ?? results.secret.ownBallot : "cast";
  if (choices.length === 0) return el("p", { className: "own-ballot" }, `You voted (your choice was erased from this node at the close): ${state}`);
  return el("p", { className: "own-ballot" }, "Your ballot (", ...choices.flatMap((choice, at) => (at > 0 ? [" + ", choice] : [choice])), `): ${state}`);
}

/** Before the close, yes/no: the two buttons, and no bars or counts. */
function openYesNoRows(results, context, canVote) {
  const own = results.ownVotes[0] ?? null;
  const rows = el("div", { className: "options yes-no secret-choices" });
  for (const [choice, label] of [["up", "👍 Yes"], ["down", "👎 No"]]) {
    const chosen = own === choice;
    rows.append(el("button", {
      className: `vote${chosen ? " chosen" : ""}`, text: chosen ? `✓ ${label}` : label,
      title: chosen ? "Your ballot" : canVote ? "Cast your secret ballot (final)" : "",
      attrs: { type: "button", disabled: !canVote, "aria-pressed": chosen ? "true" : "false" },
      on: { click: () => cast(context, results, [choice]) },
    }));
  }
  return rows;
}

/** Before the close, options: a choice per option (up to the limit) and one button that casts them. */
function openOptionRows(results, context, canVote) {
  const settings = results.settings ?? {};
  const own = new Set(results.ownVotes);
  const limit = settings.unique ? 1 : settings.maxVotes ?? results.options.length;
  const rows = el("div", { className: "options secret-choices" });
  const boxes = [];
  for (const option of results.options) {
    const box = el("input", {
      attrs: { type: limit === 1 ? "radio" : "checkbox", name: `secret-${results.id}`, "data-choice": option.id,
        checked: own.has(option.id), disabled: !canVote },
    });
    boxes.push(box);
    rows.append(el("label", { className: `secret-choice${own.has(option.id) ? " chosen" : ""}` }, box,
      el("span", { className: "option-text", text: option.text })));
  }
  if (!canVote) return rows;
  if (limit > 1 && limit < results.options.length) rows.append(el("p", { className: "hint", text: `Choose up to ${limit}.` }));
  const send = el("button", {
    className: "primary cast", text: "Cast secret ballot",
    attrs: { type: "button" },
    on: { click: () => {
      const chosen = boxes.filter((box) => box.checked).map((box) => box.dataset.choice);
      if (chosen.length === 0) return context.toast("Choose an option first.");
      if (chosen.length > limit) return context.toast(`Choose at most ${limit}.`);
      cast(context, results, chosen);
    } },
  });
  rows.append(el("div", { className: "poll-actions" }, send));
  return rows;
}

/** After the close, yes/no: the rule's bars (`results.bars`, as polls.js and the full screen draw them) and counts. */
function finalYesNoRows(results, { bar, barFor }) {
  const own = results.ownVotes[0] ?? null;
  const rows = el("div", { className: "options yes-no" });
  for (const [choice, label] of [["up", "👍 Yes"], ["down", "👎 No"]]) {
    const chosen = own === choice;
    const drawn = barFor(results, choice);
    const shown = el("span", { className: `choice-label${chosen ? " chosen" : ""}`, text: chosen ? `✓ ${label}` : label, title: chosen ? "Your ballot" : "" });
    if (drawn.winner) shown.prepend(el("span", { className: "star", text: "★ ", title: "Winner" }));
    rows.append(el("div", { className: "option-row" }, shown,
      bar(drawn.share, { winner: drawn.winner, own: chosen }),
      el("span", { className: "count", text: String(drawn.votes) })));
  }
  return rows;
}

/** After the close, options: the rule's bars and counts (a tie at the top stars none). */
function finalOptionRows(results, { bar, barFor }) {
  const own = new Set(results.ownVotes);
  const rows = el("div", { className: "options" });
  for (const option of results.options ?? []) {
    const chosen = own.has(option.id);
    const drawn = barFor(results, option.id);
    const label = el("span", { className: "option-text", text: option.text });
    if (drawn.winner) label.prepend(el("span", { className: "star", text: "★ ", title: "Winner" }));
    rows.append(el("div", { className: "option-row" },
      el("span", { className: "own-mark", text: chosen ? "✓" : "", title: chosen ? "Your ballot" : "" }),
      label, bar(drawn.share, { winner: drawn.winner, own: chosen }),
      el("span", { className: "count", text: String(drawn.votes) })));
  }
  return rows;
}

/** Casts the ballot, keeps how it travels, and redraws the card from the results that come back. */
async function cast(context, results, choices) {
  try {
    const vote = await call("pollVote", { chat: context.chat, poll: results.id, choices });
    const ballot = vote.secretBallot;
    // Two independent paths when four other members were reachable: one hostile member on a path
    // can neither keep the ballot out of the creator's batch nor make it come out alone.
    receipts.set(results.id, () => [
      "Sent ",
      ...ballot.paths.flatMap((path, index) => [index > 0 ? " and " : "", "through ", nameRun(path.firstRelayName, path.firstRelay),
        " sealed for ", nameRun(path.publisherName, path.publisher)]),
      ", published at the close. Your choice stays on this device."]);
    context.onChanged(vote.poll);
  } catch (error) {
    context.toast(error.message);
  }
}
