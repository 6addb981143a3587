// Command waymark records human demonstrations of browser tasks, labels them
// and exports them as Hugging Face datasets. See README.md.
package main

import "waymark/app"

func main() { app.Exit() }
