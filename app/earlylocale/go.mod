module early.waymark/locale

go 1.26
