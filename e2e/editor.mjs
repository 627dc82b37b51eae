// The lab's code editor as the walks use it: prism-code-editor (editor/index.js) over
// the panel's textarea, which stays the panel's value (hidden). Its own textarea is what
// the learner types in (`content`).

/** The editor of `lab` (a Playwright locator of a `section.lab`). */
export function codeEditor(lab) {
  const content = lab.locator('.lab-pce textarea');
  const textarea = lab.locator('textarea.lab-editor');
  return {
    content,
    /** Waits until the editor is over the textarea. */
    async ready(timeout = 30000) {
      await content.waitFor({ timeout });
    },
    /** The code, as the panel reads it. */
    value: () => textarea.inputValue(),
    /** Replaces all the code, as selecting everything and pasting would. */
    async fill(code) {
      await content.waitFor({ timeout: 30000 });
      await content.click();
      await content.press('ControlOrMeta+a');
      // As a paste lands: one insertion over the selection, which the editor's history
      // and its input handling see.
      await content.evaluate((el, text) => document.execCommand('insertText', false, text), code);
      await textarea.evaluate((el, text) => new Promise((resolve, reject) => {
        const until = Date.now() + 5000;
        const check = () => (el.value === text ? resolve() : Date.now() > until ? reject(new Error('the paste did not reach the panel')) : setTimeout(check, 10));
        check();
      }), code);
    },
    /** The focus leaves the editor (the panel saves the code then). */
    blur: () => content.evaluate((el) => el.blur()),
  };
}

/**
 * Starts the app with a click in `lab`'s editor, wherever it is at that moment: the
 * prerendered textarea, the panel's textarea, or the code editor over it.
 */
export async function clickInto(lab) {
  // Playwright keeps the element it first resolved while it waits for it to be
  // visible. When the editor comes between that and the click, the textarea it
  // resolved is hidden for good; a short try, then a fresh look, finds the editor.
  const target = lab.locator('textarea:visible').first();
  for (let tries = 1; ; tries += 1) {
    try {
      await target.click({ timeout: 3000 });
      return;
    } catch (error) {
      if (tries === 10) throw error;
    }
  }
}
