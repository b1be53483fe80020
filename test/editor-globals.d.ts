/**
 * Globals of the Node-RED editor page, used only inside functions the browser tests hand to
 * Playwright's page.evaluate / waitForFunction (they run in the page, not in Node). The editor's
 * client API has no published types.
 */
declare const RED: any;
