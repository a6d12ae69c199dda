/** What the first-run checklist remembers in this browser, per account: a snippet was copied, the list was hidden. */

const read = (name: string): boolean => {
  try {
    return window.localStorage.getItem(name) === 'yes';
  } catch {
    return false;
  }
};
const write = (name: string): void => {
  try {
    window.localStorage.setItem(name, 'yes');
  } catch {
    // Storage refused: remembered for this page only.
  }
};

export const snippetCopied = (accountId: string): boolean => read(`junction.checklist.copied.${accountId}`);
export const markSnippetCopied = (accountId: string): void => write(`junction.checklist.copied.${accountId}`);
export const checklistHidden = (accountId: string): boolean => read(`junction.checklist.hidden.${accountId}`);
export const hideChecklist = (accountId: string): void => write(`junction.checklist.hidden.${accountId}`);
