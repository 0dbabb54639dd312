import { makeCircle } from './models';

export function View(): JSX.Element {
  const c = makeCircle(1);
  return <div onClick={() => c.describe()}>{c.area()}</div>;
}
