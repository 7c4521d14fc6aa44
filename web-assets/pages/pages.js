// Progressive enhancement only: every page works without this file.
"use strict";

// The person's own day: the pages count "today" (follow-ups due, contacts logged) by the offset
// from UTC this cookie carries, read from the browser's clock on every page, so a change of
// daylight saving time or of place is picked up at the next page. Without it, days are UTC's.
{
  const offset = `leadhub_utc_offset=${-new Date().getTimezoneOffset()}`;
  if (!document.cookie.split("; ").includes(offset)) {
    const secure = location.protocol === "https:" ? "; secure" : "";
    document.cookie = `${offset}; path=/; max-age=31536000; samesite=lax${secure}`;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  // "Near me" on the lead list: the browser's own position (it asks the person first) as the
  // list's place, the list's other filters kept, nearest first. Without a position to give, the
  // button stays hidden; a refusal is said beside it.
  const nearMe = document.getElementById("near-me");
  if (nearMe && "geolocation" in navigator) {
    nearMe.hidden = false;
    nearMe.addEventListener("click", () => {
      const status = document.getElementById("near-me-status");
      status.textContent = "Finding where you are…";
      navigator.geolocation.getCurrentPosition(
        (at) => {
          const list = new URLSearchParams(location.search);
          list.delete("offset");
          list.set("near", `${at.coords.latitude.toFixed(5)},${at.coords.longitude.toFixed(5)}`);
          if (!list.get("within_miles")) list.set("within_miles", "1");
          list.set("sort", "distance");
          location.assign(`/leads?${list}`);
        },
        (refused) => {
          status.textContent = `Your browser did not tell where you are: ${refused.message || "refused"}.`;
        },
        { enableHighAccuracy: true, timeout: 15000, maximumAge: 60000 },
      );
    });
  }

  // On a phone the list's lesser filters (their summary counts those set) and the bulk bar start
  // folded, so the leads are a thumb's scroll away instead of three screens of fields.
  if (window.matchMedia("(max-width: 640px)").matches) {
    for (const fold of document.querySelectorAll("details[data-fold-on-phone]")) fold.open = false;
  }
  // Copy buttons: shown only when the clipboard API is there to back them.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const field = document.getElementById(button.dataset.copy);
    if (!field) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        button.textContent = "Copied";
      } catch {
        field.select();
        button.textContent = "Press Ctrl+C to copy";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 2500);
    });
    field.addEventListener("focus", () => field.select());
  }

  // "Follow-ups due": the browser's own day, for a page drawn before the offset cookie was set.
  const localDay = (plus) => {
    const d = new Date();
    d.setDate(d.getDate() + plus);
    const two = (n) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  };
  for (const link of document.querySelectorAll("a[data-today-param]")) {
    const url = new URL(link.href);
    url.searchParams.set(link.dataset.todayParam, localDay(0));
    link.href = url.pathname + url.search;
  }

  // Quick follow-up days ("tomorrow", "in a week"): fill the date field with the person's own
  // day plus so many days; saving stays the form's button.
  for (const quick of document.querySelectorAll("[data-quick-days]")) {
    const field = document.getElementById(quick.dataset.quickDays);
    if (!field) continue;
    quick.hidden = false;
    for (const button of quick.querySelectorAll("button[data-days]")) {
      button.addEventListener("click", () => {
        field.value = localDay(Number(button.dataset.days));
        field.focus();
      });
    }
  }

  // Tag fields suggest the tags in use, most used first: the rows of the /tags page, read once,
  // when a person first goes to such a field. Counting them reads every tagged lead, a cost the
  // page views themselves do not pay.
  const knownTags = document.getElementById("known-tags");
  const tagFields = document.querySelectorAll('input[list="known-tags"]');
  if (knownTags && tagFields.length > 0) {
    let asked = false;
    const suggest = () => {
      if (asked) return;
      asked = true;
      fillKnownTags(knownTags);
    };
    for (const field of tagFields) field.addEventListener("focus", suggest);
  }

  // The upload status page: poll it and change only the status text and the bar (the live region
  // #upload-state announces the change); once the import ends, put its summary in place.
  const progress = document.querySelector("#upload-progress[data-poll]");
  if (progress) setTimeout(() => pollUpload(progress), 2000);
});

async function pollUpload(progress) {
  let next;
  try {
    const answer = await fetch(progress.dataset.poll, { cache: "no-store", credentials: "same-origin" });
    if (!answer.ok) throw new Error(`status ${answer.status}`);
    next = new DOMParser().parseFromString(await answer.text(), "text/html");
  } catch {
    setTimeout(() => pollUpload(progress), 5000); // offline for a moment: try again, a bit later
    return;
  }
  const running = next.getElementById("upload-progress-text");
  if (running) {
    const text = document.getElementById("upload-progress-text");
    if (text.textContent !== running.textContent) text.textContent = running.textContent;
    const bar = next.getElementById("upload-bar");
    if (bar) document.getElementById("upload-bar").value = bar.value;
    setTimeout(() => pollUpload(progress), 2000);
    return;
  }
  const result = next.getElementById("upload-summary") ?? next.getElementById("upload-failed");
  if (result) progress.replaceWith(document.importNode(result, true));
}

async function fillKnownTags(list) {
  try {
    const answer = await fetch("/tags", { credentials: "same-origin" });
    if (!answer.ok) return;
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    for (const row of page.querySelectorAll("tr[data-tag]")) {
      const option = document.createElement("option");
      option.value = row.dataset.tag;
      list.append(option);
    }
  } catch {
    // Offline for a moment: no suggestions; the field still takes any tag.
  }
}
