module outrider.local/httpload

go 1.22
