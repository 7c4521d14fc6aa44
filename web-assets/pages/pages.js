// Progressive enhancement only: every page works without this file.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
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
});
