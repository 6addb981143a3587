package app

import "errors"

func init() {
	register("gui", "gui", "open the desktop app (the default)", func(env *Env, args []string) error {
		return errors.New("the desktop app is not built yet; use 'waymark play' meanwhile")
	})
}
