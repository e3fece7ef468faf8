// A virtualized list of fixed-height rows: only the rows in view (plus a margin) are in the DOM,
// so a 10k-event timeline paints as fast as a short one.
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

export interface VirtualListProps<T> {
  readonly items: readonly T[];
  readonly rowHeight: number;
  readonly render: (item: T, index: number) => ComponentChildren;
  /** Scroll so this index is in view when it changes. */
  readonly scrollTo?: number | undefined;
  readonly testId?: string;
}

const OVERSCAN = 12;

export function VirtualList<T>({ items, rowHeight, render, scrollTo, testId }: VirtualListProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const el = box.current;
    if (el === null) return;
    setHeight(el.clientHeight || 600);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    const el = box.current;
    if (el === null || scrollTo === undefined || scrollTo < 0) return;
    const y = scrollTo * rowHeight;
    if (y < el.scrollTop || y > el.scrollTop + el.clientHeight - rowHeight)
      el.scrollTop = Math.max(0, y - el.clientHeight / 3);
  }, [scrollTo, rowHeight]);
  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + OVERSCAN);
  const visible = [];
  for (let i = first; i < last; i++)
    visible.push(
      <div key={i} class="vrow" style={{ top: `${i * rowHeight}px`, height: `${rowHeight}px` }}>
        {render(items[i]!, i)}
      </div>,
    );
  return (
    <div
      class="vlist"
      ref={box}
      data-testid={testId}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <div style={{ height: `${items.length * rowHeight}px`, position: "relative" }}>{visible}</div>
    </div>
  );
}
