package javascript_test

import (
	"context"
	"fmt"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/javascript"
)

func Example() {
	files := []callgraph.SourceFile{
		{Path: "animals.js", Src: []byte(`export class Animal {
  constructor(name) { this.name = name; }
  speak() { return this.sound(); }
  sound() { return '...'; }
}
export class Dog extends Animal {
  sound() { return 'woof'; }
}
`)},
		{Path: "main.js", Src: []byte(`import { Dog as D } from './animals.js';
const rex = new D('rex');
console.log(rex.speak());
`)},
	}
	a, err := javascript.New(javascript.Options{}).Analyze(context.Background(), files)
	if err != nil {
		panic(err)
	}
	for _, d := range a.Definitions {
		fmt.Printf("%s (%s)\n", d.ID, d.Kind)
	}
	for _, c := range a.Calls {
		fmt.Printf("%s -> %s at line %d\n", c.Caller, c.Callee, c.Line)
	}
	fmt.Printf("%d call sites, %d resolved\n", a.CallSites, a.Resolved)
	// Output:
	// animals.js::Animal.constructor (method)
	// animals.js::Animal.speak (method)
	// animals.js::Animal.sound (method)
	// animals.js::Dog.sound (method)
	// main.js::<module> (module)
	// animals.js::Animal.speak -> animals.js::Animal.sound at line 3
	// main.js::<module> -> animals.js::Animal.constructor at line 2
	// main.js::<module> -> animals.js::Animal.speak at line 3
	// 4 call sites, 3 resolved
}
