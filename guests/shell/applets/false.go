package applets

// falseApplet does nothing, unsuccessfully.
func falseApplet(*Proc, []string) int { return 1 }
