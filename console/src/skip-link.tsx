/** The id of every page's `<main>`: where "Skip to content" moves focus. */
export const MAIN_ID = 'content';

/**
 * The first thing a keyboard reaches: it moves focus past the navigation to the page's `<main>`
 * (which has `tabIndex={-1}` to take it). Focused by script, not followed: the console's routes
 * live after `#`, so `href="#content"` alone would be read as a route. Hidden until focused.
 */
export function SkipLink() {
  return (
    <a
      className="skip-link"
      href={`#${MAIN_ID}`}
      onClick={(e) => {
        e.preventDefault();
        document.getElementById(MAIN_ID)?.focus();
      }}
    >
      Skip to content
    </a>
  );
}
