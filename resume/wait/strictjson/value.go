package strictjson

// Value is a decoded JSON value, for documents small enough to take whole
// (a trigger): members keep their order, numbers their literal text.
type Value struct {
	Kind Kind
	// Text is a string's value, a number's literal text, or "true" or
	// "false".
	Text    string
	Elems   []Value
	Members []Member
}

// Member is one member of an object Value.
type Member struct {
	Key   string
	Value Value
}

// Get returns the member named key, or nil when it is absent or null: in
// every document recess reads, a null counts as the member left out.
func (v *Value) Get(key string) *Value {
	for i := range v.Members {
		if m := &v.Members[i]; m.Key == key {
			if m.Value.Kind == Null {
				return nil
			}
			return &m.Value
		}
	}
	return nil
}

// Parse reads data as one object document (see Decoder.Document) into a
// Value whose root path is root.
func Parse(data []byte, root string, lim Limits) (*Value, error) {
	d := NewDecoder(data, root, lim)
	v := &Value{Kind: Object}
	if err := d.Document(d.memberOf(v)); err != nil {
		return nil, err
	}
	return v, nil
}

// Value reads the next value whole.
func (d *Decoder) Value() (*Value, error) {
	v := &Value{}
	if err := d.value(v); err != nil {
		return nil, err
	}
	return v, nil
}

func (d *Decoder) memberOf(v *Value) func(string) error {
	return func(key string) error {
		v.Members = append(v.Members, Member{Key: key})
		return d.value(&v.Members[len(v.Members)-1].Value)
	}
}

func (d *Decoder) value(v *Value) error {
	var err error
	switch v.Kind = d.Peek(); v.Kind {
	case Object:
		return d.object(d.memberOf(v), false)
	case Array:
		return d.array(func(int) error {
			v.Elems = append(v.Elems, Value{})
			return d.value(&v.Elems[len(v.Elems)-1])
		})
	case String:
		v.Text, err = d.str(false)
	case Number:
		v.Text, err = d.Number()
	case Bool:
		var b bool
		if b, err = d.Bool(); b {
			v.Text = "true"
		} else {
			v.Text = "false"
		}
	case Null:
		err = d.literal("null")
	default:
		err = d.syntaxError()
	}
	return err
}
